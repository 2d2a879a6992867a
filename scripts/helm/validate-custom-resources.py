"""Validates the custom resources of a `helm template` rendering against their operators' CRDs.

kubernetes-validate knows only Kubernetes' own kinds: it warns about a ScaledObject or a
ServiceMonitor and passes it. This checks each of them against the openAPIV3Schema of its CRD (from
the operator's Go module, downloaded by install-tools.sh), made strict like `kubernetes-validate
--strict`: an object schema with properties refuses any other property, unless the CRD lets unknown
fields through (x-kubernetes-preserve-unknown-fields). A kind of a non-Kubernetes API group that no
CRD given describes fails too.

Usage: python validate-custom-resources.py RENDERED.yaml CRD_FILE...
"""
import sys

import jsonschema
import yaml


def strict(schema):
    if isinstance(schema, dict):
        schema = {key: strict(value) for key, value in schema.items()}
        if (
            schema.get("type") == "object"
            and "properties" in schema
            and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")
        ):
            schema["additionalProperties"] = False
        return schema
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    return schema


def is_kubernetes_group(api_version):
    group = api_version.split("/")[0] if "/" in api_version else ""
    return "." not in group or group.endswith(".k8s.io")


def main(rendered, crd_files):
    schemas = {}
    for crd_file in crd_files:
        with open(crd_file, encoding="utf-8") as handle:
            for crd in yaml.safe_load_all(handle):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                spec = crd["spec"]
                for version in spec["versions"]:
                    schema = strict(version["schema"]["openAPIV3Schema"])
                    schemas[(f"{spec['group']}/{version['name']}", spec["names"]["kind"])] = schema
    failures = 0
    checked = 0
    with open(rendered, encoding="utf-8") as handle:
        documents = [document for document in yaml.safe_load_all(handle) if document]
    for document in documents:
        key = (document.get("apiVersion", ""), document.get("kind", ""))
        name = f"{key[1]} {document.get('metadata', {}).get('name')} ({key[0]})"
        if key not in schemas:
            if not is_kubernetes_group(key[0]):
                print(f"{rendered}: {name}: no CRD describes it")
                failures += 1
            continue
        body = {field: value for field, value in document.items() if field != "metadata"}
        errors = sorted(jsonschema.Draft4Validator(schemas[key]).iter_errors(body), key=lambda error: list(error.path))
        for error in errors:
            print(f"{rendered}: {name}: at {'.'.join(str(part) for part in error.path) or '(root)'}: {error.message}")
        failures += len(errors)
        checked += 1
    print(f"{checked} custom resource(s) checked against their CRDs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
