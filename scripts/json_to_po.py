"""One-off: turn the English JSON catalogue (companion/locale/en/*.json) into gettext PO files.

Run from the repository root: ``python scripts/json_to_po.py [--keep]``. Each ``<area>.json``
becomes ``<area>.po`` (msgid = the key, msgstr = the English text; a list of plural forms
becomes msgid_plural/msgstr[n]); keys already in an existing ``<area>.po`` are updated, others
added, and the JSON is deleted unless ``--keep``. Kept for merging a branch that still adds
keys to a JSON area.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

EN = Path(__file__).resolve().parents[1] / "companion" / "locale" / "en"


def convert(path: Path) -> Path:
    out = path.with_suffix(".po")
    if out.exists():
        with out.open("rb") as f:
            catalog = read_po(f)
    else:
        catalog = Catalog(locale="en", project="Table Companion", version="1", fuzzy=False)
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("_plural_forms", None)  # English's rule comes with Babel's locale data
    for key, text in data.items():
        if isinstance(text, list):
            catalog.add((key, key), tuple(text))
        else:
            catalog.add(key, text)
    with out.open("wb") as f:
        write_po(f, catalog, width=0, omit_header=False, sort_output=False)
    return out


if __name__ == "__main__":
    for path in sorted(EN.glob("*.json")):
        print(convert(path))
        if "--keep" not in sys.argv:
            path.unlink()
