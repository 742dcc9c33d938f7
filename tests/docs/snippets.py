#!/usr/bin/env python3
"""Compiles (and runs) the C++ and CUDA code snippets of kops' Markdown docs.

Every fenced block of README.md and docs/*.md whose info string is `cpp`
(or `c++`) or `cuda` (or `cu`) is compiled; other info strings (`sh`, `text`,
...) are not. tests/docs/README.md describes the conventions:

  fragment (default)   `#include` lines hoisted to the top of the file's
                       translation unit, the rest in its own scope inside a
                       function that runs with Kokkos initialised and the
                       prelude's names (tests/docs/snippet_prelude.hpp) in scope;
  <!-- snippet: continue -->     the same scope as the previous fragment
                                 of the same language in the file;
  <!-- snippet: toplevel -->     at namespace scope (compiled, not run);
  <!-- snippet: fail REGEX -->   must not compile; the diagnostics must match
                                 REGEX (a CMake regular expression);
  a block containing `int main(` is a whole program, compiled alone and run.

Directive comments sit on the line(s) right before the opening fence; several
may be stacked, one per line (e.g. continue, then fail).

Two ways to run it:

  snippets.py --generate OUTDIR [--root DIR]
      (CMake, at configure time) writes the translation units into OUTDIR
      and OUTDIR/manifest.txt, which cmake/kops_doc_snippets.cmake reads.
  snippets.py --check [FILE.md ...] [--cuda]
      (by hand) compiles with g++ (and nvcc with --cuda) in a temporary
      folder, runs what can run, prints PASS/FAIL per block. No files: all.
  snippets.py --parse [FILE.md ...]
      lists the compiled blocks and their kinds (and reports malformed files).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

LANGS = {"cpp": "cpp", "c++": "cpp", "cuda": "cuda", "cu": "cuda"}
EXT = {"cpp": ".cpp", "cuda": ".cu"}
PRELUDE = {"cpp": "snippet_prelude.hpp", "cuda": "snippet_prelude_cuda.hpp"}

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*snippet\b(?P<colon>\s*:)?(?P<body>.*?)(?P<end>-->)?\s*$")
INCLUDE = re.compile(r"^\s*#\s*include\b")
PROGRAM = re.compile(r"\bint\s+main\s*\(")


class DocError(Exception):
    """A malformed Markdown file or directive: 'path:line: what'."""


@dataclass
class Block:
    md: pathlib.Path          # absolute path of the Markdown file
    rel: str                  # path shown to people (relative to the root)
    fence_line: int           # 1-based line of the opening fence
    lang: str                 # "cpp" or "cuda"
    lines: list[str]          # the content, indentation of the fence removed
    toplevel: bool = False
    cont: bool = False
    fail: str | None = None   # the REGEX of `snippet: fail`
    program: bool = False
    chain: int = -1           # fragments: index of the block that opened the scope

    @property
    def first(self) -> int:   # 1-based line of the first content line
        return self.fence_line + 1

    @property
    def where(self) -> str:
        return f"{self.rel}:{self.fence_line}"

    @property
    def kind(self) -> str:
        if self.program:
            return "program"
        return "toplevel" if self.toplevel else "fragment"


# ------------------------------------------------------------------ parsing ----

def parse_directive(rel: str, lineno: int, m: re.Match) -> tuple[str, str | None]:
    if not m.group("colon"):
        raise DocError(f"{rel}:{lineno}: malformed snippet directive; write <!-- snippet: continue|toplevel|fail REGEX -->")
    if not m.group("end"):
        raise DocError(f"{rel}:{lineno}: unterminated snippet directive (no '-->' on the line)")
    body = m.group("body").strip()
    word, _, rest = body.partition(" ")
    rest = rest.strip()
    if word in ("continue", "toplevel"):
        if rest:
            raise DocError(f"{rel}:{lineno}: 'snippet: {word}' takes no argument, got '{rest}'")
        return word, None
    if word == "fail":
        if not rest:
            raise DocError(f"{rel}:{lineno}: 'snippet: fail' needs the REGEX the compiler output must match")
        return word, rest
    raise DocError(f"{rel}:{lineno}: unknown snippet directive '{body}' "
                   "(known: continue, toplevel, fail REGEX)")


def parse(md: pathlib.Path, rel: str) -> list[Block]:
    """The compiled blocks of one Markdown file, directives applied and checked."""
    text = md.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: list[tuple[int, str, str | None]] = []   # (line, directive, regex)
    i = 0
    while i < len(text):
        line = text[i]
        d = DIRECTIVE.match(line)
        if d:
            pending.append((i + 1, *parse_directive(rel, i + 1, d)))
            i += 1
            continue
        f = FENCE.match(line)
        if f and not (f.group("fence")[0] == "`" and "`" in f.group("info")):
            fence, indent = f.group("fence"), len(f.group("indent").expandtabs(4))
            close = re.compile(r"^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
            j = i + 1
            while j < len(text) and not close.match(text[j]):
                j += 1
            if j == len(text):
                raise DocError(f"{rel}:{i + 1}: unterminated code fence '{fence}' (no closing '{fence}' "
                               "before the end of the file)")
            info = f.group("info").strip()
            word = info.split()[0].lower() if info else ""
            # a cpp-flavoured info string such as `cpp title=x` still counts
            word = word.split("{")[0].split(",")[0]
            lang = LANGS.get(word)
            if pending and lang is None:
                raise DocError(f"{rel}:{pending[0][0]}: snippet directive before a block that is not compiled "
                               f"(info string '{info}'; only cpp, c++, cuda, cu blocks are)")
            if lang:
                content = []
                for raw in text[i + 1:j]:
                    k = 0
                    while k < indent and k < len(raw) and raw[k] == " ":
                        k += 1
                    content.append(raw[k:])
                b = Block(md, rel, i + 1, lang, content)
                seen = set()
                for (dl, name, regex) in pending:
                    if name in seen:
                        raise DocError(f"{rel}:{dl}: 'snippet: {name}' given twice for one block")
                    seen.add(name)
                    if name == "continue":
                        b.cont = True
                    elif name == "toplevel":
                        b.toplevel = True
                    else:
                        b.fail = regex
                b.program = any(PROGRAM.search(c) for c in content)
                if b.program and (b.cont or b.toplevel):
                    raise DocError(f"{rel}:{i + 1}: a whole program (it contains 'int main(') cannot be "
                                   "'continue' or 'toplevel'")
                if b.cont and b.toplevel:
                    raise DocError(f"{rel}:{i + 1}: 'continue' and 'toplevel' together: every toplevel block "
                                   "already shares the namespace scope; drop 'continue'")
                blocks.append(b)
            pending = []
            i = j + 1
            continue
        if pending:
            raise DocError(f"{rel}:{pending[0][0]}: a snippet directive must be on the line(s) right before "
                           "an opening code fence")
        i += 1
    if pending:
        raise DocError(f"{rel}:{pending[0][0]}: snippet directive at the end of the file, not before a code fence")

    # scopes: a fragment opens one, `continue` joins the previous fragment's
    for n, b in enumerate(blocks):
        if b.program or b.toplevel:
            continue
        if b.cont:
            prev = [p for p in blocks[:n] if p.lang == b.lang and p.kind == "fragment" and p.fail is None]
            if not prev:
                raise DocError(f"{b.where}: 'snippet: continue' but no earlier {b.lang} fragment in this file "
                               "to continue (continue joins the previous non-fail fragment of the same language)")
            b.chain = prev[-1].chain
        else:
            b.chain = n
    return blocks


# --------------------------------------------------------------- generation ----

def cstr(text) -> str:
    """A C string literal's contents."""
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


class Emitter:
    """Builds a translation unit whose #line directives point at the Markdown."""

    def __init__(self, path: pathlib.Path):
        self.path = path
        self.lines: list[str] = []

    def rel(self, path) -> str:
        """path as seen from the generated file's folder: no absolute path in
        the text, so that a checkout in another folder generates the same
        translation unit (and a compiler cache such as ccache hits)."""
        return os.path.relpath(str(path), str(pathlib.Path(self.path).parent))

    def gen(self, *lines: str) -> None:
        self.lines.extend(lines)

    def back(self) -> None:
        # the next line is numbered as in the generated file itself
        self.lines.append(f'#line {len(self.lines) + 2} "{cstr(self.rel(self.path))}"')

    def md(self, block: Block, lines: list[str]) -> None:
        self.lines.append(f'#line {block.first} "{cstr(self.rel(block.md))}"')
        self.lines.extend(lines)
        self.back()

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def split_includes(block: Block) -> tuple[list[tuple[int, str]], list[str]]:
    """(line, #include) pairs, and the content with those lines blanked (numbers kept)."""
    incs, rest = [], []
    for k, line in enumerate(block.lines):
        if INCLUDE.match(line):
            incs.append((block.first + k, line.strip()))
            rest.append("")
        else:
            rest.append(line)
    return incs, rest


def emit_head(e: Emitter, blocks: list[Block], lang: str, note: str) -> None:
    e.gen(f"// generated by tests/docs/snippets.py from {blocks[0].rel if blocks else '?'} ({note}); do not edit")
    seen = set()
    for b in blocks:
        for (ln, inc) in split_includes(b)[0]:
            if inc not in seen:
                seen.add(inc)
                e.gen(f'#line {ln} "{cstr(e.rel(b.md))}"', inc)
    e.back()
    e.gen(f'#include "{PRELUDE[lang]}"',
          "// snippets declare names to show them, not always to use them",
          "#if defined(__GNUC__)",
          '#pragma GCC diagnostic ignored "-Wunused-variable"',
          '#pragma GCC diagnostic ignored "-Wunused-but-set-variable"',
          "#endif", "")


def emit_toplevels(e: Emitter, tops: list[Block]) -> None:
    for b in tops:
        e.gen(f"// {b.where} (toplevel)")
        e.md(b, split_includes(b)[1])
        e.gen("")


def fn_name(b: Block) -> str:
    return f"kops_doc_fragment_L{b.fence_line}"


def emit_fragment_fn(e: Emitter, chain: list[Block], name: str) -> None:
    e.gen(f"// {chain[0].where}" + (f" (+ continued at lines {', '.join(str(b.fence_line) for b in chain[1:])})"
                                    if len(chain) > 1 else ""))
    e.gen(f"void {name}() {{", "  KOPS_DOC_PRELUDE", "  {")
    for b in chain:
        e.md(b, split_includes(b)[1])
    e.gen("  }", "}", "")


@dataclass
class Unit:
    kind: str                 # "fragments", "program" or "fail"
    lang: str
    md_rel: str
    name: str                 # file stem and test-name suffix, e.g. "usage.md" or "usage.md.fail_L12"
    path: pathlib.Path
    blocks: list[Block]       # the blocks this unit checks
    source: str = ""
    regex: str | None = None


def units_of(blocks: list[Block], rel: str, outdir: pathlib.Path) -> list[Unit]:
    stem = rel[len("docs/"):] if rel.startswith("docs/") else rel
    fstem = stem.replace("/", "_")
    units: list[Unit] = []
    for lang in ("cpp", "cuda"):
        mine = [b for b in blocks if b.lang == lang]
        if not mine:
            continue
        ext = EXT[lang]
        suffix = "" if lang == "cpp" else ".cuda"
        tops = [b for b in mine if b.kind == "toplevel" and b.fail is None]
        frags = [b for b in mine if b.kind == "fragment" and b.fail is None]
        chains: dict[int, list[Block]] = {}
        for b in frags:
            chains.setdefault(b.chain, []).append(b)

        if tops or frags:
            p = outdir / f"{fstem}{suffix}{ext}"
            e = Emitter(p)
            emit_head(e, tops + frags, lang, "fragments")
            emit_toplevels(e, tops)
            for head, chain in chains.items():
                emit_fragment_fn(e, chain, fn_name(chain[0]))
            if lang == "cpp":
                e.gen("int main(int argc, char** argv) {",
                      "  return ::kops_doc::run_fragments(argc, argv, {")
                for head, chain in chains.items():
                    e.gen(f'    {{"{cstr(chain[0].where)}", &{fn_name(chain[0])}}},')
                e.gen("  });", "}")
            units.append(Unit("fragments", lang, rel, stem + suffix, p,
                              sorted(tops + frags, key=lambda b: b.fence_line), e.text()))

        for b in mine:
            if not b.program or b.fail is not None:
                continue
            p = outdir / f"{fstem}.program_L{b.fence_line}{suffix}{ext}"
            e = Emitter(p)
            e.gen(f"// generated by tests/docs/snippets.py from {b.where} (whole program); do not edit")
            e.md(b, b.lines)
            units.append(Unit("program", lang, rel, f"{stem}.program_L{b.fence_line}{suffix}", p, [b], e.text()))

        for n, b in enumerate(mine):
            if b.fail is None:
                continue
            p = outdir / f"{fstem}.fail_L{b.fence_line}{suffix}{ext}"
            e = Emitter(p)
            # kops_expect_compile_failure.cmake reads the first line
            e.gen(f"// expect: {b.fail}")
            if b.program:
                e.gen(f"// generated by tests/docs/snippets.py from {b.where} (must not compile); do not edit")
                e.md(b, b.lines)
            else:
                before = mine[:n]
                ptops = [t for t in before if t.kind == "toplevel" and t.fail is None]
                chain = [c for c in before if c.kind == "fragment" and c.fail is None and b.cont
                         and c.chain == b.chain]
                emit_head(e, ptops + chain + [b], lang, "must not compile")
                emit_toplevels(e, ptops)
                if b.toplevel:
                    e.gen(f"// {b.where} (toplevel, must not compile)")
                    e.md(b, split_includes(b)[1])
                else:
                    emit_fragment_fn(e, chain + [b], fn_name(b))
            units.append(Unit("fail", lang, rel, f"{stem}.fail_L{b.fence_line}{suffix}", p, [b], e.text(), b.fail))
    return units


def md_files(root: pathlib.Path) -> list[pathlib.Path]:
    files = []
    if (root / "README.md").exists():
        files.append(root / "README.md")
    files += sorted((root / "docs").glob("*.md"))
    return files


def rel_of(root: pathlib.Path, md: pathlib.Path) -> str:
    try:
        return md.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return md.as_posix()


def write_if_changed(path: pathlib.Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.write_text(text, encoding="utf-8")


def generate(root: pathlib.Path, outdir: pathlib.Path) -> int:
    outdir.mkdir(parents=True, exist_ok=True)
    units: list[Unit] = []
    for md in md_files(root):
        rel = rel_of(root, md)
        units += units_of(parse(md, rel), rel, outdir)
    keep = {u.path.name for u in units} | {"manifest.txt"}
    for old in outdir.iterdir():
        if old.is_file() and old.name not in keep and old.suffix in (".cpp", ".cu"):
            old.unlink()
    for u in units:
        write_if_changed(u.path, u.source)
    manifest = "".join(f"{u.kind}\t{u.lang}\t{u.name}\t{u.path}\t{u.md_rel}\n" for u in units)
    write_if_changed(outdir / "manifest.txt", manifest)
    return 0


# -------------------------------------------------------------------- check ----

def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], timeout: float | None = None) -> tuple[int, str, float, float]:
    """exit code, merged output, wall seconds, CPU seconds (user + system)"""
    t0, c0 = time.monotonic(), cpu_seconds()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=timeout)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as ex:
        out = ex.stdout if isinstance(ex.stdout, str) else (ex.stdout or b"").decode(errors="replace")
        rc, out = 124, out + f"\n(timed out after {timeout} s)"
    return rc, out, time.monotonic() - t0, cpu_seconds() - c0


def compile_cmd(args, root: pathlib.Path, u: Unit, obj_only: bool, out: pathlib.Path) -> list[str]:
    incs = [f"-I{root / 'include'}", f"-I{root / 'tests' / 'docs'}", f"-I{root / 'tests' / 'conformance'}"]
    if u.lang == "cuda":
        return ([args.nvcc, "-std=c++20", f"-arch={args.cuda_arch}", "--expt-relaxed-constexpr",
                 "-O1", "-Xcompiler=-Wall", "-Xcompiler=-fdiagnostics-color=never"]
                + incs + shlex.split(args.cxxflags) + ["-c", str(u.path), "-o", str(out)])
    cmd = ([args.cxx, "-std=c++20", "-O1", "-Wall", "-Wextra", "-fno-math-errno", "-Wno-psabi",
            "-fdiagnostics-color=never"] + incs + ["-isystem", args.kokkos_include]
           + shlex.split(args.cxxflags))
    if obj_only:
        return cmd + ["-c", str(u.path), "-o", str(out)]
    return cmd + [str(u.path), "-o", str(out)] + shlex.split(args.ldlibs)


def block_of(u: Unit, md: str, line: int) -> Block | None:
    # md as the #line directives write it: relative to the generated file's folder
    where = os.path.normpath(os.path.join(os.path.dirname(str(u.path)), md))
    for b in u.blocks:
        if os.path.normpath(str(b.md)) == where and b.first <= line < b.first + len(b.lines):
            return b
    return None


def diagnostics_by_block(u: Unit, out: str) -> dict[int, list[str]]:
    """Compiler output lines that name a line of one of the unit's blocks."""
    found: dict[int, list[str]] = {}
    pat = re.compile(r"^(?P<file>[^:\n]+\.md)(?::|\()(?P<line>\d+)")
    current = None
    for line in out.splitlines():
        m = pat.match(line)
        if m:
            b = block_of(u, m.group("file"), int(m.group("line")))
            current = b.fence_line if b else None
        if current is not None:
            found.setdefault(current, []).append(line)
    return found


def show(text: str, limit: int = 60) -> str:
    lines = text.rstrip().splitlines()
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
    return "\n".join("    " + s for s in lines)


def check(args, root: pathlib.Path, files: list[pathlib.Path]) -> int:
    results = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    total_compile = total_cpu = 0.0

    def report(status: str, where: str, what: str, detail: str = "") -> None:
        results[status] += 1
        print(f"{status} {where} ({what})")
        if detail:
            print(detail)

    with tempfile.TemporaryDirectory(prefix="kops_snippets_") as tmp_s:
        tmp = pathlib.Path(args.workdir).resolve() if args.workdir else pathlib.Path(tmp_s)
        tmp.mkdir(parents=True, exist_ok=True)
        for md in files:
            rel = rel_of(root, md)
            try:
                units = units_of(parse(md.resolve(), rel), rel, tmp)
            except DocError as ex:
                print(f"FAIL {ex}")
                results["FAIL"] += 1
                continue
            if not units:
                print(f"(no cpp/cuda blocks in {rel})")
            for u in units:
                u.path.write_text(u.source, encoding="utf-8")
                if u.lang == "cuda" and not args.cuda:
                    for b in u.blocks:
                        report("SKIP", b.where, f"cuda {b.kind}; --cuda compiles it with nvcc")
                    continue
                exe = tmp / (u.path.stem + (".o" if u.lang == "cuda" or u.kind == "fail" else ".exe"))
                obj_only = u.lang == "cuda" or u.kind == "fail"
                rc, out, secs, cpu = run(compile_cmd(args, root, u, obj_only, exe))
                total_compile += secs
                total_cpu += cpu
                print(f"  compiled {u.name}{EXT[u.lang]}: {secs:.1f} s wall, {cpu:.1f} s CPU (exit {rc})")
                if u.kind == "fail":
                    b = u.blocks[0]
                    if rc == 0:
                        report("FAIL", b.where, "snippet: fail",
                               "    it compiled, but a 'snippet: fail' block must not compile")
                    elif not re.search(u.regex, out, re.S):
                        report("FAIL", b.where, "snippet: fail",
                               f"    it fails to compile, but the output does not match '{u.regex}':\n" + show(out))
                    else:
                        report("PASS", b.where, "snippet: fail, the expected error")
                    continue
                if rc != 0:
                    diags = diagnostics_by_block(u, out)
                    for b in u.blocks:
                        if b.fence_line in diags:
                            report("FAIL", b.where, f"{b.lang} {b.kind}: compile error", show("\n".join(diags[b.fence_line])))
                        else:
                            report("SKIP", b.where, f"{b.lang} {b.kind}: not run, the file's translation unit does not compile")
                    if not diags:
                        print(show(out))
                    continue
                if out.strip():
                    print(show(out))   # warnings
                if u.lang == "cuda":
                    for b in u.blocks:
                        report("PASS", b.where, f"cuda {b.kind}: compiled (not run: no GPU needed)")
                    continue
                rc, out, secs, _ = run([str(exe)], timeout=args.timeout)
                if u.kind == "program":
                    b = u.blocks[0]
                    if rc == 0:
                        report("PASS", b.where, f"program: compiled, ran in {secs:.1f} s")
                    else:
                        report("FAIL", b.where, f"program: exit code {rc}", show(out))
                    continue
                status = {}
                for line in out.splitlines():
                    m = re.match(r"^(PASS|FAIL) (\S+:\d+)(.*)$", line)
                    if m:
                        status[m.group(2)] = (m.group(1), m.group(3).lstrip(": "))
                for b in u.blocks:
                    if b.kind == "toplevel":
                        report("PASS", b.where, "toplevel: compiled")
                    elif b.cont:
                        # a continue block: it ran with the fragment that opened its scope
                        head = next(c for c in u.blocks if c.kind == "fragment" and c.chain == b.chain)
                        st = status.get(head.where, ("FAIL", "did not run"))
                        report(st[0], b.where, f"fragment, continues {head.where}" + (f": {st[1]}" if st[1] else ""))
                    else:
                        st = status.get(b.where)
                        if st is None:
                            report("FAIL", b.where, f"fragment did not report (exit code {rc})", show(out))
                        else:
                            report(st[0], b.where, "fragment: ran" + (f": {st[1]}" if st[1] else ""))
    print(f"\n{results['PASS']} passed, {results['FAIL']} failed, {results['SKIP']} skipped; "
          f"compile time {total_compile:.1f} s wall, {total_cpu:.1f} s CPU")
    return 1 if results["FAIL"] else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--generate", metavar="OUTDIR", help="write the translation units and manifest.txt (CMake)")
    mode.add_argument("--check", action="store_true", help="compile and run the snippets of FILE.md ... (all: none given)")
    mode.add_argument("--parse", action="store_true", help="only parse FILE.md ... and list their blocks")
    ap.add_argument("files", nargs="*", help="Markdown files (--check, --parse)")
    ap.add_argument("--root", default=str(pathlib.Path(__file__).resolve().parents[2]),
                    help="the repository root (default: this script's ../..)")
    ap.add_argument("--cuda", action="store_true", help="--check: also compile the cuda blocks with nvcc")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--cuda-arch", default="sm_90")
    ap.add_argument("--kokkos-include", default="/usr/include/trilinos")
    ap.add_argument("--ldlibs", default="-ltrilinos_kokkoscore -ldl")
    ap.add_argument("--cxxflags", default="", help="extra compiler flags")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a snippet executable may run")
    ap.add_argument("--workdir", metavar="DIR", help="--check: build in DIR and keep the files there "
                    "(default: a temporary folder, removed at the end)")
    args = ap.parse_args()
    root = pathlib.Path(args.root).resolve()
    try:
        if args.generate:
            return generate(root, pathlib.Path(args.generate).resolve())
        files = [pathlib.Path(f).resolve() for f in args.files] or md_files(root)
        if args.parse:
            for md in files:
                rel = rel_of(root, md)
                for b in parse(md, rel):
                    flags = " ".join(x for x in ("continue" if b.cont else "", f"fail {b.fail}" if b.fail else "") if x)
                    print(f"{b.where}: {b.lang} {b.kind} {flags}".rstrip())
            return 0
        return check(args, root, files)
    except DocError as ex:
        print(f"snippets.py: error: {ex}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
