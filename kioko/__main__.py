"""``python -m kioko ...`` is the ``kioko`` command."""

import sys

from .cli import main

sys.exit(main())
