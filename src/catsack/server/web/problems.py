"""Why a request's fields were refused, as reasons and numbers a page can word in its own language.

The 422 answer of a request that fails validation keeps its English ``detail`` for API clients and
carries ``params.problems``: one ``{"field", "reason", "params"}`` per problem, ``reason`` one of
:data:`REASONS`. The browser shows ``err.field.<field>`` and ``err.why.<reason>`` from its catalogue
(static/i18n.js ``errorText``), so a German page gets German reasons, not pydantic's English.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from catsack.server.validate import InputProblem

__all__ = ["REASONS", "field_problems"]

#: Pydantic's error types, by the reason a page words; the params each reason's text may use follow.
_BY_TYPE = {
    "missing": "missing",
    "string_too_long": "too_long",  # max
    "string_too_short": "too_short",  # min
    "greater_than_equal": "too_small",  # min
    "greater_than": "too_small",
    "less_than_equal": "too_big",  # max
    "less_than": "too_big",
    "int_parsing": "not_whole_number",
    "int_type": "not_whole_number",
    "int_from_float": "not_whole_number",
    "float_parsing": "not_number",
    "float_type": "not_number",
    "bool_parsing": "not_yes_no",
    "bool_type": "not_yes_no",
    "string_type": "not_text",
    "extra_forbidden": "unknown_field",
    "json_invalid": "bad_json",
    "dict_type": "bad_shape",
    "model_attributes_type": "bad_shape",
    "list_type": "bad_shape",
}
#: Every reason a problem can carry: the mapped pydantic types, the checks of validate.py
#: (:class:`InputProblem` reasons) and ``bad_value`` for anything else.
REASONS = (
    *dict.fromkeys(_BY_TYPE.values()),
    "empty",
    "not_printable",
    "unknown_bot",
    "bad_value",
)
# The pydantic context numbers each reason passes on, as the catalogue's placeholder names.
_NUMBERS = {"max_length": "max", "min_length": "min", "ge": "min", "gt": "min", "le": "max", "lt": "max"}


def _field(loc: Sequence[Any]) -> str:
    return ".".join(str(p) for p in loc if p != "body") or "body"


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def field_problems(errors: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One problem per validation error: the field's dotted path, a reason of :data:`REASONS` and its
    numbers (``max``, ``min``, ``n``...)."""
    out: list[dict[str, Any]] = []
    for e in errors:
        ctx = e.get("ctx") or {}
        error = ctx.get("error")
        params: dict[str, Any] = {}
        if isinstance(error, InputProblem):
            reason = error.reason
            params = {k: v for k, v in error.params.items() if _number(v) is not None}
        else:
            reason = _BY_TYPE.get(str(e.get("type")), "bad_value")
            for key, name in _NUMBERS.items():
                value = _number(ctx.get(key))
                if value is not None:
                    params[name] = value
        reason = reason if reason in REASONS else "bad_value"
        out.append({"field": _field(e.get("loc", ())), "reason": reason, "params": params})
    return out
