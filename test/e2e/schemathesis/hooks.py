"""schemathesis hooks of the fuzz test of the public API (loaded through SCHEMATHESIS_HOOKS by
test/e2e/schemathesis.e2e-spec.ts). They teach schemathesis what the document leaves to words."""

import json
import re
import uuid
from urllib.parse import quote

import schemathesis

# What the document allows as an `Idempotency-Key`.
VALID_IDEMPOTENCY_KEY = re.compile(r"[\x20-\x7E]{1,255}")


@schemathesis.serializer("application/ndjson", "application/x-ndjson")
def ndjson(ctx, value):
    """Bodies of `application/ndjson` (user-id lists, imports): the document describes them as text.

    Text goes as it is; anything else a negative case makes of the body goes as one JSON value per line.
    """
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    values = value if isinstance(value, list) else [value]
    return "".join(json.dumps(item) + "\n" for item in values).encode("utf-8", "surrogatepass")


@schemathesis.hook
def before_call(ctx, case, kwargs):
    """A path parameter that is not text (a stateful link may copy a list from a response) as its JSON text.

    schemathesis percent-encodes only text path parameters, before this hook; a list would reach the
    URL as Python's repr, unencoded, so a `#` or `?` in it would cut the path and the request would
    hit no operation. Encoded here, it is one odd id, which the operation must answer as documented.
    """
    parameters = case.path_parameters or {}
    for name, value in list(parameters.items()):
        if not isinstance(value, str):
            parameters[name] = quote(json.dumps(value), safe="")
    unique_idempotency_key(case)


def unique_idempotency_key(case):
    """A valid `Idempotency-Key` made unique, so each request is run rather than answered from an earlier one.

    Generated keys repeat (`0`, the document's example) across requests with other bodies, and each
    repeat is a 422 by design: nearly every request would then test the key, none its own body.
    Invalid keys are sent as they are (a 400 is what they test); replays have specs of their own.
    """
    headers = case.headers or {}
    for name in [name for name in headers if name.lower() == "idempotency-key"]:
        value = headers[name]
        if isinstance(value, str) and VALID_IDEMPOTENCY_KEY.fullmatch(value):
            headers[name] = f"fuzz-{uuid.uuid4()}"
