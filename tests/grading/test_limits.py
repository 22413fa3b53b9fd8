"""Each limit declared once (helpers/grading/limits.py): the command line, Settings and the
options table of the instructor's guide (docs/instructors.md) say what limits.OPTIONS says."""

from __future__ import annotations

import re

from helpers.grading import cli, limits
from helpers.grading.records import Settings

from ..docs import docs_text


def _parser():
    import argparse

    p = argparse.ArgumentParser()
    cli.add_arguments(p)
    return p


def test_settings_and_the_command_line_take_their_defaults_from_limits():
    args = _parser().parse_args(["subs", "--seed", "1"])
    from_cli = cli.settings_from(args)
    for flag, (field, value, _, scale, text) in limits.OPTIONS.items():
        assert getattr(Settings(), field) == getattr(from_cli, field) == limits.default(field)
        assert limits.default(field) == (value * scale if scale != 1 else value)
        action = next(a for a in _parser()._actions if flag in a.option_strings)
        assert action.default == value and text in action.help


def test_a_flag_in_its_unit_becomes_the_field_in_its_own():
    args = _parser().parse_args(["subs", "--memory", "0.5", "--timeout", "7", "--seed", "1"])
    settings = cli.settings_from(args)
    assert settings.memory_bytes == 2**29 and settings.cell_timeout == 7.0


def test_the_guides_table_says_the_declared_defaults():
    docs = docs_text()
    for flag, (_, value, unit, _, _) in limits.OPTIONS.items():
        row = re.search(rf"^\| `{re.escape(flag)} {unit}` \| ([^|]+) \|", docs, re.M)
        assert row, f"no row for {flag} {unit} in the instructor's guide's options table"
        assert float(row.group(1)) == value, (flag, row.group(0))
