"""pytest set-up for nbval over solutions/.

nbval compares stdout and displayed values but not stderr: warnings and progress bars go
there and differ between machines.
"""


def pytest_collectstart(collector):
    if collector.__class__.__name__ == "IPyNbFile":
        collector.skip_compare = tuple(collector.skip_compare) + ("stderr",)
