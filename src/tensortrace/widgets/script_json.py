"""JSON embedded in an HTML `<script>` element, safe for any string the data holds.

Mirrors no PyTorch file: it is what Django's `json_script` and Go's `html/template` do. Inside a
`<script>` element the HTML parser still looks for `</script`, and `<!--` followed by `<script`
switches it into the "script data double escaped" state, where `</script>` no longer closes the
element (the page goes blank). JSON lets any character be written as `\\uXXXX`, so `<`, `>` and
`&` are written that way and the parser never sees markup; U+2028 and U+2029 are too, because
older JavaScript parsers read them as line terminators. `JSON.parse` of the element's text gives
back exactly the data.
"""

from __future__ import annotations

import json
from typing import Any

_ESCAPES = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


def script_json(data: Any) -> str:
    """`data` as compact JSON text that can sit inside any `<script>` element as it is."""
    return json.dumps(data, separators=(",", ":")).translate(_ESCAPES)
