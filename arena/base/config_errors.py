"""A pydantic error as one line naming the key as the file spells it.

    first_problem(error, Config)  # "limits.replyTimeout: should be greater than 0 (got -1)"

`arena.base.config` validates a file with its models; a user is told the first problem only,
in one line: the key in the file's spelling (`rules.dealBySeats`, `participants[1].command`),
what is wrong, and what was given (cut to 80 characters); for an unknown key, the nearest
known one ("did you mean 'replyTimeout'?"), the table it belongs in, or the table's keys.
`root` is the model of the whole file, from which the table of an unknown key is found.
"""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from arena.engine.text import shorten


def first_problem(error: ValidationError, root: type[BaseModel]) -> str:
    """The first of `error`'s problems as one line, `key: what is wrong (got …)`, the key as the
    file spells it; `root` is the model of the whole file (for an unknown key's neighbours)."""
    problem = error.errors(include_url=False)[0]
    location = [
        part for part in problem["loc"] if not str(part).startswith(("function-", "union["))
    ]
    # A union (`command` as list or string) reports under its member types: keep the key only.
    location = [
        part for part in location if part not in ("list[str]", "str", "int", "float", "none")
    ]
    key = _dotted(location) or "(top level)"
    kind, message = problem["type"], problem["msg"]
    if kind == "missing":
        return f"{key}: missing (required)"
    if kind == "extra_forbidden":
        return f"{key}: unknown key{_did_you_mean(location, root)}"
    if kind == "value_error":
        message = message.removeprefix("Value error, ")
        # A section's own check names its key first ("dealBySeats: …"): put it in the path.
        field, _, rest = message.partition(": ")
        if location and location[-1] in ("rules", "deck", "limits") and rest and " " not in field:
            key, message = f"{key}.{field}", rest
    elif kind in ("model_type", "dict_type"):
        message = "should be a table"
    elif kind == "list_type" and location == ["participants"]:
        message = "should be an array of tables ([[participants]])"
    elif kind == "too_short" and location == ["participants"]:
        message = f"at least two participants are needed, found {len(problem.get('input') or [])}"
        return f"{key}: {message}"
    elif kind == "finite_number":
        message = "should be a finite number"
    got = problem.get("input")
    if kind not in ("value_error",) and not isinstance(got, (dict, list)):
        message += f" (got {shorten(repr(got), 80)})"
    return f"{key}: {message}"


def _dotted(location: list[Any]) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _did_you_mean(location: list[Any], root: type[BaseModel]) -> str:
    """The nearest key of the file's spelling to an unknown one, or every key of its table."""
    model: type[BaseModel] | None = root
    for part in location[:-1]:
        if isinstance(part, int) or model is None:
            continue
        field = _keys(model).get(str(part))
        model = model_in(field.annotation if field is not None else None)
    if model is None:
        return ""
    python_name = model.model_fields.get(str(location[-1]))
    if python_name is not None and python_name.alias is not None:  # `matches` for `games`
        return f"; did you mean {python_name.alias!r}?"
    keys = list(_keys(model))
    close = difflib.get_close_matches(str(location[-1]), keys, n=1)
    if close:
        return f"; did you mean {close[0]!r}?"
    home = _home_of(str(location[-1]), root)
    if home is not None and home[1] is not model:
        return f"; {home[0]}"
    return f"; known keys: {', '.join(keys)}"


def _home_of(key: str, root: type[BaseModel]) -> tuple[str, type[BaseModel]] | None:
    """Where a key written in the wrong table belongs, in words (`matches` under `[tournament]`:
    the top's `games`; `replyTimeout` under `[rules]`: `[limits]`), with that table's model."""
    for name, field in root.model_fields.items():
        if key in (name, field.alias):
            return f"it belongs at the top of the file, as {field.alias or name!r}", root
        section = model_in(field.annotation)
        if section is not None and name != "participants":
            for inner, spelled in section.model_fields.items():
                if key in (inner, spelled.alias):
                    return f"it belongs in [{field.alias or name}]", section
    return None


def _keys(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """A table's fields by their key in the file."""
    return {field.alias or name: field for name, field in model.model_fields.items()}


def model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds (a table, or the tables of an array), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in getattr(annotation, "__args__", ()):
        found = model_in(argument)
        if found is not None:
            return found
    return None
