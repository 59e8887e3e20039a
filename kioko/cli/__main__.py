"""``python -m kioko.cli ...`` is the ``kioko`` command, as ``python -m kioko`` is."""

import sys

from kioko.cli import main

sys.exit(main())
