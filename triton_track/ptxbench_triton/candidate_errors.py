"""Where in the candidate's file an error is: a Triton compilation error's kernel line, or a Python
exception's deepest frame in the candidate. Lines and columns count from 1; 0 means unknown.
"""
import os
import traceback

MESSAGE_LINES = 12  # enough for Triton's messages, short enough for a model's feedback


def short(text):
    """At most MESSAGE_LINES lines of str(text); an exception of the candidate's own class may fail
    to print (its __str__ is the candidate's code), which must not take this tool down."""
    try:
        text = str(text)
    except Exception:  # noqa: BLE001
        text = "<the exception could not be printed>"
    lines = [l.rstrip() for l in text.strip().splitlines()]
    return "\n".join(lines[:MESSAGE_LINES] + (["..."] if len(lines) > MESSAGE_LINES else []))


def deepest_candidate_frame(tb, path):
    """(line, column) of the deepest traceback frame inside the candidate's file."""
    want = os.path.realpath(path)
    for frame in reversed(traceback.extract_tb(tb)):
        if os.path.realpath(frame.filename) == want:
            col = getattr(frame, "colno", None)
            return frame.lineno or 0, (col + 1) if col is not None else 0
    return 0, 0


def raised_by_tool(tb, tool_dir):
    """Whether the exception came from this package's own code (the driver's launcher, ...) rather
    than from the candidate or from Triton compiling it: the deepest frame is in this package (the
    outermost, main's, always is, so a one-frame traceback is not the tool's)."""
    frames = traceback.extract_tb(tb)[1:]
    return bool(frames) and os.path.dirname(os.path.realpath(frames[-1].filename)) == os.path.realpath(tool_dir)


def _compilation_chain(err):
    """The CompilationErrors from the outermost (the kernel launched) to the innermost (the helper
    kernel where the error is), following the causes Triton chains them by."""
    chain, seen = [], set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if hasattr(err, "node") and hasattr(err, "src"):
            chain.append(err)
        err = err.__cause__ or err.__context__
    return chain


def _location(err, source_text):
    """(line, column) in the file of one CompilationError: its node's line counts within the source
    of the kernel it quotes (err.src, from the `def` line on), which is found in the file."""
    node_line = getattr(err.node, "lineno", None)
    src = err.src
    if node_line is None or not src:
        return 0, 0
    at = source_text.find(src)
    if at < 0:  # a nested kernel's source is dedented: find its first line instead
        at = source_text.find(src.splitlines()[0].strip())
        if at < 0:
            return 0, 0
        at = source_text.rfind("\n", 0, at) + 1
    def_line = source_text.count("\n", 0, at) + 1
    indent = len(source_text[at:].splitlines()[0]) - len(src.splitlines()[0])
    return def_line + node_line - 1, getattr(err.node, "col_offset", 0) + max(indent, 0) + 1


def compilation_error(err, source_text):
    """(message, line, column) of a triton CompilationError: where the innermost error is (a helper
    kernel's line rather than the call's), with Triton's own message minus its quoted source."""
    chain = _compilation_chain(err)
    located = [(e, _location(e, source_text)) for e in chain]
    located = [(e, at) for e, at in located if at[0]] or [(err, (0, 0))]
    inner, (line, column) = located[-1]
    cause = inner.__cause__ or inner.__context__
    text = getattr(inner, "error_message", None) or (f"{type(cause).__name__}: {cause}" if cause else str(inner))
    message = f"{type(err).__name__}: {short(text)}"
    if len(located) > 1:
        message += f" (in a function called at line {located[-2][1][0]})"
    return message, line, column
