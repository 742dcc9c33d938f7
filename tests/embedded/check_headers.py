#!/usr/bin/env python3
"""The embedded profile's static check (docs/embedded.md): no `throw`, `try`,
`catch`, `typeid` or `dynamic_cast` in include/kops outside a branch that only
a build with exceptions compiles: `#if KOPS_EXCEPTIONS` (or the `#else` of
`#if !KOPS_EXCEPTIONS`), or `#if defined(__cpp_exceptions)` (the compiler's own
macro, for code such as the emulator's guard around kernels that is about C++
exceptions as such, not about kops' reporting mode).

usage: check_headers.py <repository root>; exit status 1 and one line per
offending use when there is one."""
import pathlib
import re
import sys

KEYWORDS = re.compile(r"\b(throw|try|catch|typeid|dynamic_cast)\b")
EXCEPTION_CONDITIONS = {"KOPS_EXCEPTIONS", "defined(__cpp_exceptions)", "defined __cpp_exceptions",
                        "__cpp_exceptions"}


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            if c == '"' and i > 0 and text[i - 1] == "R":  # raw string R"d( ... )d"
                k = text.index("(", i)
                end = ")" + text[i + 1:k] + '"'
                j = text.index(end, k) + len(end)
            else:
                j = i + 1
                while j < n and text[j] != c:
                    j += 2 if text[j] == "\\" else 1
                j += 1
            out.append(c + "".join(ch if ch == "\n" else " " for ch in text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def offences(path):
    lines = strip_comments_and_strings(path.read_text()).split("\n")
    # One entry per open #if: is the current branch compiled only with exceptions?
    stack = []
    found = []
    for number, line in enumerate(lines, 1):
        directive = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
        if directive:
            word, rest = directive.group(1), " ".join(directive.group(2).split())
            if word in ("if", "ifdef", "ifndef"):
                cond = rest if word == "if" else ("defined(%s)" % rest if word == "ifdef" else "!defined(%s)" % rest)
                stack.append({"positive": cond in EXCEPTION_CONDITIONS,
                              "negative": cond.startswith("!") and cond[1:].strip() in EXCEPTION_CONDITIONS,
                              "else": False})
            elif word in ("elif", "else") and stack:
                stack[-1]["else"] = True
                if word == "elif":
                    stack[-1]["positive"] = stack[-1]["negative"] = False
            elif word == "endif" and stack:
                stack.pop()
            continue
        guarded = any((s["positive"] and not s["else"]) or (s["negative"] and s["else"]) for s in stack)
        for m in KEYWORDS.finditer(line):
            if not guarded:
                found.append("%s:%d: `%s` outside an exceptions-only branch" % (path, number, m.group(1)))
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    headers = sorted((root / "include" / "kops").rglob("*.h*"))
    problems = [p for h in headers for p in offences(h)]
    for p in problems:
        print(p)
    print("check_headers: %d headers, %d problem(s)" % (len(headers), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
