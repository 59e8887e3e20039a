"""``python -m kioko ...`` is the ``kioko`` command."""

import sys

from kioko.cli import main

sys.exit(main())
