"""Writes CronJob YAML in every scalar style and what PyYAML reads from it.

Run from the repository root with Debian's python3-yaml (PyYAML 6.0):
    /usr/bin/python3 fleet/tests/data/make_import_cronjobs.py \
        fleet/tests/data/import_cronjobs.yaml > fleet/tests/data/import_cronjobs.tsv

The YAML goes to the file named first: 120 CronJob documents (some inside
a `kind: List`) whose names, namespaces, schedules and zones are written
plain, single-quoted, double-quoted with escapes, as literal or folded
blocks, in flow mappings and through anchors and aliases. The rows on
stdout are what PyYAML's composer reads back, not what the generator
meant: for each CronJob in document order, the line (1-based) of its
`spec.schedule` node, then `namespace/name` (`default` without a
namespace), the schedule and the time zone (`-` without one). No value
holds a tab or a line break, so the columns need no escaping.
"""

import random
import sys

import yaml

NAMES = [
    "report",
    "nightly backup",
    "café-rapport",
    "日本語のジョブ",
    "team a/service b",
    "it's here",
    'say "hi"',
    "back\\slash",
    "dash-and_underscore.dot",
    "emoji 🚀 launch",
    "  padded  ",
    "colon: inside",
    "hash # inside",
    "Ünïcödé",
    "x",
]
NAMESPACES = [None, "default", "billing", "ops team", "café", "k8s-system"]
SCHEDULES = [
    "* * * * *",
    "0 */2 * * *",
    "30 4 * * 1-5",
    "15,45 9-17 * * mon-fri",
    "0 0 1 * *",
    "0 12 1,15 * *",
    "5 4 * * sun",
    "0 0 1 jan *",
    "@hourly",
    "@daily",
    "@midnight",
    "@weekly",
    "@monthly",
    "@yearly",
    "*/5 * * * *",
    "0 22 * * 1-5",
    "1-59/7 * * * *",
]
ZONES = [None, "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Etc/GMT+5"]


def plain_safe(text):
    """Whether PyYAML reads `text` back unchanged when written plain."""
    try:
        return yaml.safe_load("k: " + text + "\n") == {"k": text}
    except yaml.YAMLError:
        return False


def scalar(text, style, rng):
    """`text` as a YAML scalar in `style`, or a style that can hold it."""
    if style == "plain" and plain_safe(text):
        return text
    if style == "double":
        escaped = ""
        for c in text:
            if c in '"\\':
                escaped += "\\" + c
            elif ord(c) > 127 and rng.random() < 0.5:
                escaped += "\\u%04x" % ord(c) if ord(c) < 0x10000 else "\\U%08x" % ord(c)
            else:
                escaped += c
        return '"' + escaped + '"'
    return "'" + text.replace("'", "''") + "'"


def block(key, text, indent, rng):
    """`key:` and `text` as a literal or folded block when it can be one."""
    pad = " " * indent
    if text != text.strip() or not text:
        return pad + key + ": " + scalar(text, "single", rng) + "\n"
    words = text.split(" ")
    if rng.random() < 0.5 or len(words) < 2:
        return pad + key + ": |-\n" + pad + "  " + text + "\n"
    cut = rng.randrange(1, len(words))
    # A folded block joins its lines with one space.
    return (
        pad + key + ": >-\n"
        + pad + "  " + " ".join(words[:cut]) + "\n"
        + pad + "  " + " ".join(words[cut:]) + "\n"
    )


def value(key, text, indent, rng):
    style = rng.choice(["plain", "single", "double", "block"])
    if style == "block" and "#" not in text:
        return block(key, text, indent, rng)
    return " " * indent + key + ": " + scalar(text, style if style != "block" else "double", rng) + "\n"


def cron_job(rng, indent):
    name = rng.choice(NAMES)
    namespace = rng.choice(NAMESPACES)
    schedule = rng.choice(SCHEDULES)
    zone = rng.choice(ZONES)
    pad = " " * indent
    lines = pad + "apiVersion: batch/v1\n" + pad + "kind: CronJob\n"
    if rng.random() < 0.25 and plain_safe(name) and (namespace is None or plain_safe(namespace)):
        fields = ["name: " + name] + ([] if namespace is None else ["namespace: " + namespace])
        lines += pad + "metadata: {" + ", ".join(fields) + "}\n"
    elif rng.random() < 0.2:
        lines += pad + "metadata:\n"
        # Anchors are numbered: PyYAML refuses one given twice in a document.
        anchor = "app%d" % rng.randrange(10**6)
        lines += pad + "  labels:\n" + pad + "    app: &" + anchor + " " + scalar(name, "double", rng) + "\n"
        lines += pad + "  name: *" + anchor + "\n"
        if namespace is not None:
            lines += value("namespace", namespace, indent + 2, rng)
    else:
        lines += pad + "metadata:\n" + value("name", name, indent + 2, rng)
        if namespace is not None:
            lines += value("namespace", namespace, indent + 2, rng)
    lines += pad + "spec:\n"
    if rng.random() < 0.3:
        lines += pad + "  # when it runs\n"
    lines += pad + "  concurrencyPolicy: Forbid\n"
    lines += pad + "  schedule: " + scalar(schedule, rng.choice(["plain", "single", "double"]), rng) + "\n"
    if zone is not None:
        lines += value("timeZone", zone, indent + 2, rng)
    lines += pad + "  jobTemplate:\n" + pad + "    spec: {template: {spec: {restartPolicy: Never}}}\n"
    return lines


def documents(rng):
    text = ""
    made = 0
    while made < 120:
        text += "---\n"
        if rng.random() < 0.15:
            count = rng.randrange(2, 4)
            text += "apiVersion: v1\nkind: List\nitems:\n"
            for _ in range(count):
                job = cron_job(rng, 4)
                text += "  - " + job[4:]
            made += count
        else:
            text += cron_job(rng, 0)
            made += 1
        if rng.random() < 0.1:
            text += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n"
    return text


def rows(text):
    for document in yaml.compose_all(text):
        data = yaml.safe_load(yaml.serialize(document))
        nodes = [document]
        if data.get("kind") == "List":
            nodes = [item for key, items in document.value if key.value == "items" for item in items.value]
        for node in nodes:
            job = yaml.safe_load(yaml.serialize(node))
            if job.get("kind") != "CronJob":
                continue
            spec = next(v for k, v in node.value if k.value == "spec")
            schedule = next(v for k, v in spec.value if k.value == "schedule")
            metadata = job["metadata"]
            namespace = metadata.get("namespace", "default")
            zone = job["spec"].get("timeZone", "-")
            yield (schedule.start_mark.line + 1, namespace + "/" + metadata["name"], job["spec"]["schedule"], zone)


def main():
    rng = random.Random(20260101)
    text = documents(rng)
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write(text)
    print("# CronJob YAML read by PyYAML %s: line, id, schedule, timeZone" % yaml.__version__)
    for line, id_, schedule, zone in rows(text):
        # Fleet fields are trimmed; the importer trims ids the same way.
        print("%d\t%s\t%s\t%s" % (line, id_.strip(), schedule, zone))


if __name__ == "__main__":
    main()
