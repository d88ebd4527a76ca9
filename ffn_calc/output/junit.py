"""`ffn-calc check --format junit`: JUnit XML, one test case per requirement and one test suite
per budget, as CI systems (GitHub Actions reporters, GitLab, Jenkins) read it. English."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from ffn_calc.i18n.translate import use

if TYPE_CHECKING:
    from ffn_calc.sweeps.budgets import CheckReport


# Characters XML 1.0 cannot hold, even escaped (a control character in a model's name).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    return _NOT_XML.sub("?", text)


def to_junit(r: CheckReport) -> str:
    """The report as a JUnit XML document (`failures` counts the failed requirements)."""
    from ffn_calc.sweeps.require import failure, shown_value

    with use("en"):
        root = ET.Element(
            "testsuites",
            name="ffn-calc check",
            tests=str(r.requirements),
            failures=str(r.failed),
            errors="0",
        )
        for b in r.budgets:
            failed = sum(not q.holds for q in b.requirements)
            suite = ET.SubElement(
                root,
                "testsuite",
                name=_x(b.name),
                tests=str(len(b.requirements)),
                failures=str(failed),
                errors="0",
                skipped="0",
            )
            props = ET.SubElement(suite, "properties")
            for key, value in (("model", b.model), ("source", b.source), ("file", r.file)):
                ET.SubElement(props, "property", name=key, value=_x(value))
            for q in b.requirements:
                case = ET.SubElement(
                    suite, "testcase", classname=_x(f"budgets.{b.name}"), name=_x(q.requirement)
                )
                if not q.holds:
                    message = _x(failure(q))
                    node = ET.SubElement(case, "failure", message=message, type="requirement")
                    node.text = _x(f"{message} (value {shown_value(q)}, required {q.requirement})")
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
