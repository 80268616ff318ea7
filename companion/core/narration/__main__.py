"""``python -m companion.core.narration SCRIPT [name=value ...]``: check a script, print its timeline."""
from companion.core.narration.record import main

raise SystemExit(main())
