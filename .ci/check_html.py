"""Check the built HTML for what a reader without network needs (run after the book build).

Every page must load MathJax from the site itself (``mathjax/es5/...``, copied from
_mathjax/ by html_extra_path), the script must exist, and no page may load a script
from another host. Usage: python .ci/check_html.py _build/html
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import urljoin

SCRIPT = re.compile(r"<script[^>]*\ssrc=\"([^\"]+)\"", re.IGNORECASE)


def main(root: str) -> int:
    site = Path(root)
    pages = sorted(site.rglob("*.html"))
    problems = []
    if not pages:
        problems.append(f"no HTML page under {site}")
    for page in pages:
        rel = page.relative_to(site).as_posix()
        sources = SCRIPT.findall(page.read_text(encoding="utf-8"))
        remote = [s for s in sources if re.match(r"^(https?:)?//", s)]
        if remote:
            problems.append(f"{rel}: scripts from another host: {', '.join(remote)}")
        mathjax = [s for s in sources if "mathjax" in s.lower()]
        for src in mathjax:
            target = urljoin(rel, src.split("?")[0])
            if not (site / target).is_file():
                problems.append(f"{rel}: MathJax script {src!r} is not in the site")
        if "\\(" in page.read_text(encoding="utf-8") and not mathjax:
            problems.append(f"{rel}: has math but loads no MathJax")
    for p in problems:
        print(f"check_html: {p}", file=sys.stderr)
    print(f"check_html: {len(pages)} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
