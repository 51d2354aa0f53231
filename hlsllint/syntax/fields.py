"""Field ids of the HLSL grammar, looked up once (`node.child_by_field_id(ARGUMENT)` is
`node.child_by_field_name("argument")` without scanning the grammar's field names each call)."""

from __future__ import annotations

from hlsllint.syntax import field_id

F_ALTERNATIVE = field_id("alternative")
F_ARGUMENT = field_id("argument")
F_ARGUMENTS = field_id("arguments")
F_BODY = field_id("body")
F_CONDITION = field_id("condition")
F_CONSEQUENCE = field_id("consequence")
F_DECLARATOR = field_id("declarator")
F_DEFAULT_VALUE = field_id("default_value")
F_FIELD = field_id("field")
F_FUNCTION = field_id("function")
F_INDICES = field_id("indices")
F_INITIALIZER = field_id("initializer")
F_LEFT = field_id("left")
F_NAME = field_id("name")
F_OPERATOR = field_id("operator")
F_PARAMETERS = field_id("parameters")
F_RIGHT = field_id("right")
F_SIZE = field_id("size")
F_TYPE = field_id("type")
F_UPDATE = field_id("update")
F_VALUE = field_id("value")
