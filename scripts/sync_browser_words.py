"""Write the words both sides show (card names, move words: catsack.i18n.SHARED_WORDS) from the Python
side's catalogues into the browser's JSON catalogues, so the two say the same thing.

    python scripts/sync_browser_words.py         # rewrites src/catsack/server/static/i18n/<lang>.json
    python scripts/sync_browser_words.py --check # exit 1 and name the keys that differ, writing nothing

The ``.po`` files are the source of these words; tests/test_catalogues.py fails when the JSON differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from catsack.i18n import SHARED_WORDS, shared_word
from catsack.locales import LANGUAGES

STATIC_I18N = Path(__file__).resolve().parents[1] / "src" / "catsack" / "server" / "static" / "i18n"


def shared_words(lang: str) -> dict[str, str]:
    """The shared words in ``lang`` by the browser catalogue's key, as the ``.po`` file has them."""
    return {key: shared_word(key, lang) for key in SHARED_WORDS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which keys differ")
    args = parser.parse_args()
    differ = []
    for lang in LANGUAGES:
        path = STATIC_I18N / f"{lang}.json"
        catalogue = json.loads(path.read_text("utf-8"))
        words = shared_words(lang)
        changed = sorted(k for k, v in words.items() if catalogue.get(k) != v)
        differ += [f"{lang}: {k}" for k in changed]
        if changed and not args.check:
            catalogue.update(words)
            text = json.dumps(dict(sorted(catalogue.items())), ensure_ascii=False, indent=1) + "\n"
            path.write_text(text, encoding="utf-8")
    for line in differ:
        print(line)
    return 1 if differ and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
