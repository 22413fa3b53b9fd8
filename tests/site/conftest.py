import pytest

from .build import built


@pytest.fixture(scope="session")
def site():
    return built()
