"""What every Python benchmark does with its summary: print the Markdown,
write it (--md) and the figures (--json) where asked."""

import json
import sys


def add_arguments(parser, pathlib):
    parser.add_argument("--md", type=pathlib.Path, help="write the Markdown summary here")
    parser.add_argument("--json", type=pathlib.Path, help="write the figures as JSON here")


def emit(program, text, summary, md_path, json_path):
    """Prints ``text`` and writes both files; the exit status: 0, or 1 when
    a file cannot be written (named in the message)."""
    print(text, end="")
    try:
        if md_path:
            md_path.write_text(text)
        if json_path:
            json_path.write_text(json.dumps(summary, indent=2) + "\n")
    except OSError as e:
        print(f"{program}: cannot write the summary: {e}", file=sys.stderr)
        return 1
    return 0
