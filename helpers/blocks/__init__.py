"""Building blocks exported from the solved notebooks (see helpers/notebooks/export.py)."""

from .attention import *  # noqa: F401,F403
from .decoder import *  # noqa: F401,F403
from .efficient import *  # noqa: F401,F403
from .encoder import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .multihead import *  # noqa: F401,F403
from .positional import *  # noqa: F401,F403
from .vit import *  # noqa: F401,F403
