"""Files a person keeps (groups, exports) written whole or not at all."""
from __future__ import annotations

import os
from pathlib import Path


def write_whole(path: Path, text: str) -> None:
    """``text`` to a new file beside ``path``, flushed to the disk, then moved over ``path``: a
    kill -9 or a full disk leaves the old file or the new one, never half of one. Raises
    OSError (with nothing left behind)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
