"""Helpers for reading the pictures back: parse the SVG text and find elements by class."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

NS = "{http://www.w3.org/2000/svg}"
DATA = Path(__file__).parent.parent / "data"


def parse(svg_text: str) -> ET.Element:
    root = ET.fromstring(svg_text)  # raises on malformed XML
    assert root.tag == f"{NS}svg"
    return root


def with_class(root: ET.Element, *classes: str) -> list[ET.Element]:
    """Elements whose class attribute holds all of `classes`."""
    return [el for el in root.iter() if set(classes) <= set(el.get("class", "").split())]


def texts(el: ET.Element) -> list[str]:
    return [t.text or "" for t in el.iter(f"{NS}text")]


def check_golden(name: str, actual: str) -> None:
    """Compare with tests/data/<name>; TENSORTRACE_UPDATE_GOLDEN=1 rewrites it instead."""
    path = DATA / name
    if os.environ.get("TENSORTRACE_UPDATE_GOLDEN") == "1":
        path.write_text(actual)
    assert actual == path.read_text(), f"{name} differs (TENSORTRACE_UPDATE_GOLDEN=1 rewrites)"
