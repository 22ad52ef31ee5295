"""What an interpreter runs, read from its command line (contract §8.2, "for interpreters too").

An agent run by node or python is, to the OS, `/usr/bin/node`: every Node script would be one agent. So when
the agent's executable is an interpreter, its command line says which program it is: the script file (made
absolute against the working folder read once, then resolved), a `-m` module, a jar, or code given inline.

Each interpreter's options are read by its own grammar: options without a value are skipped, options with a
value skip that value too, so `node --title x script.js` runs `script.js`, not `x`. An option the grammar does
not know could take a value, and then the next word would be taken for the script: such a command line is
"unread" and never trusted, as are options that load other code before the script (`node -r`, `ruby -r`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from core.agents.identity import Runs, RunsKind
from core.agents.interpreter_names import interpreter_of


@dataclass(frozen=True, slots=True)
class Grammar:
    """One interpreter family's options. Short option letters stand alone (`-u`) unless `clusters` (Python's
    `-uBc code`: letters run together; a letter that takes a value takes the rest of the word or the next)."""

    flags: frozenset[str] = frozenset()
    flag_prefixes: tuple[str, ...] = ()  # e.g. node's `--no-…`: all without a value
    valued: frozenset[str] = frozenset()  # take a value (next word, or `--opt=value`)
    valued_prefixes: tuple[str, ...] = ()  # take their value attached: java's `-Dk=v`, `-Xmx1g`
    inline: frozenset[str] = frozenset()  # the value is the code run: -e, -c
    module: frozenset[str] = frozenset()  # the value names a module or class found on a search path
    script: frozenset[str] = frozenset()  # the value is the program file: java -jar, php -f
    loads: frozenset[str] = frozenset()  # the value is code run before the script: node -r, ruby -r
    clusters: bool = False
    names_class: bool = (
        False  # java: the first word is a class (found on the class path), unless a .java file
    )
    subcommands: dict[str, RunsKind | None] = field(default_factory=dict)  # deno run → None (read on)


def _set(*words: str) -> frozenset[str]:
    return frozenset(words)


NODE = Grammar(
    flags=_set(
        "-i",
        "--interactive",
        "--check",
        "-c",
        "--watch",
        "--preserve-symlinks",
        "--jitless",
        "--abort-on-uncaught-exception",
        "--expose-gc",
        "--prof",
        "--pending-deprecation",
        "--throw-deprecation",
        "--frozen-intrinsics",
        "--insecure-http-parser",
        "--use-openssl-ca",
        "--use-bundled-ca",
        "--preserve-symlinks-main",
        "--zero-fill-buffers",
        "--watch-preserve-output",
    ),
    flag_prefixes=(
        "--no-",
        "--experimental-",
        "--trace-",
        "--enable-",
        "--inspect",
        "--expose-",
        "--allow-",
        "--max-",
        "--report-",
        "--heap-prof",
        "--cpu-prof",
        "--harmony",
        "--stack-",
        "--tls-",
    ),
    valued=_set(
        "--title",
        "-C",
        "--conditions",
        "--input-type",
        "--inspect-port",
        "--debug-port",
        "--disable-warning",
        "--dns-result-order",
        "--unhandled-rejections",
        "--redirect-warnings",
        "--diagnostic-dir",
        "--icu-data-dir",
        "--openssl-config",
        "--secure-heap",
        "--watch-path",
        "--disable-proto",
        "--experimental-default-type",
        "--stack-trace-limit",
    ),
    inline=_set("-e", "--eval", "-p", "--print"),
    loads=_set(
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "--env-file",
        "--env-file-if-exists",
        "--experimental-policy",
        "--snapshot-blob",
    ),
)
BUN = Grammar(
    flags=_set("--smol", "--bun", "--hot", "--watch", "--no-install", "--silent"),
    valued=_set("--cwd", "--config", "-c", "--env-file", "--tsconfig-override"),
    inline=_set("-e", "--eval", "-p", "--print"),
    loads=_set("-r", "--preload", "--require", "--import"),
    subcommands={"run": None, "x": "module", "exec": "inline"},
)
DENO = Grammar(
    flags=_set("-A", "-q", "--quiet", "--no-check", "--no-prompt", "--unstable", "--watch", "--reload", "-r"),
    flag_prefixes=("--allow-", "--deny-", "--unstable-", "--no-"),
    valued=_set("--config", "-c", "--import-map", "--lock", "--cert", "--location", "--seed", "--v8-flags"),
    loads=_set("--preload", "--env-file"),
    subcommands={
        "run": None,
        "serve": None,
        "eval": "inline",
        "repl": "none",
        "x": "module",
        "task": "module",
    },
)
PYTHON = Grammar(
    flags=_set(*(f"-{letter}" for letter in "bBdEhiIOPqsSuvVxR")),
    valued=_set("-W", "-X", "--check-hash-based-pycs"),
    inline=_set("-c"),
    module=_set("-m"),
    clusters=True,
)
RUBY = Grammar(
    flags=_set(
        "-w",
        "-W",
        "-v",
        "-d",
        "-U",
        "-l",
        "-n",
        "-p",
        "-a",
        "-c",
        "-y",
        "--verbose",
        "--yjit",
        "--jit",
        "--disable-gems",
    ),
    flag_prefixes=("--enable-", "--disable-", "-W"),
    valued=_set("-I", "-E", "--encoding", "-F"),
    inline=_set("-e"),
    loads=_set("-r"),  # -C (change folder) and -S (search PATH) are not known, so never trusted
    clusters=True,
)
PERL = Grammar(
    flags=_set("-w", "-W", "-X", "-T", "-t", "-s", "-n", "-p", "-a", "-l", "-c", "-U", "-S"),
    valued=_set("-I"),
    inline=_set("-e", "-E"),
    loads=_set("-M", "-m"),
    clusters=True,
)
PHP = Grammar(
    flags=_set("-n", "-q", "-H", "-e"),
    valued=_set("-d", "-c", "-z"),
    inline=_set("-r", "-R", "-B", "-E", "-F"),
    script=_set("-f"),
)
JAVA = Grammar(
    flags=_set(
        "-server",
        "-client",
        "-ea",
        "-da",
        "-esa",
        "-dsa",
        "-enableassertions",
        "-showversion",
        "--enable-preview",
    ),
    flag_prefixes=("-verbose", "-ea:", "-da:"),
    valued=_set(
        "-cp",
        "-classpath",
        "--class-path",
        "-p",
        "--module-path",
        "--add-modules",
        "--add-opens",
        "--add-exports",
        "--add-reads",
        "--source",
    ),
    valued_prefixes=("-D", "-X"),
    module=_set("-m", "--module"),
    script=_set("-jar"),
    loads=_set("-javaagent", "-agentlib", "-agentpath"),
    names_class=True,
)
SHELL = Grammar(
    flags=_set(
        "-e",
        "-x",
        "-u",
        "-v",
        "-n",
        "-l",
        "-i",
        "-f",
        "-h",
        "-p",
        "-a",
        "--login",
        "--norc",
        "--noprofile",
        "--posix",
    ),
    valued=_set("-o", "+o", "-O", "--rcfile", "--init-file"),
    inline=_set("-c"),
    clusters=True,
)
LUA = Grammar(flags=_set("-i", "-v", "-W", "-E"), inline=_set("-e"), loads=_set("-l"))

# Each interpreter family (core/agents/interpreter_names.py knows them by name) → its grammar.
_GRAMMARS: dict[str, Grammar] = {
    "node": NODE,
    "bun": BUN,
    "deno": DENO,
    "python": PYTHON,
    "ruby": RUBY,
    "perl": PERL,
    "php": PHP,
    "java": JAVA,
    "shell": SHELL,
    "lua": LUA,
}


def grammar_of(executable: str) -> Grammar | None:
    """The grammar of an interpreter, or None for a program that runs itself (codex, claude, …)."""
    family = interpreter_of(executable)
    return None if family is None else _GRAMMARS[family]


class _Read:
    """One interpreter command line, read left to right."""

    def __init__(self, grammar: Grammar, argv: list[str], cwd: str) -> None:
        self.grammar = grammar
        self.words = argv[1:]
        self.cwd = cwd

    def runs(self) -> Runs:
        grammar = self.grammar
        index = 0
        if self.words and self.words[0] in grammar.subcommands:
            kind = grammar.subcommands[self.words[0]]
            if kind is not None:
                target = self.words[1] if kind == "module" and len(self.words) > 1 else ""
                return Runs(kind=kind, target=target)
            index = 1
        while index < len(self.words):
            word = self.words[index]
            if word == "--":
                return self._file(self.words[index + 1]) if index + 1 < len(self.words) else Runs(kind="none")
            if grammar.names_class and not word.startswith("-") and not word.endswith(".java"):
                return Runs(kind="module", target=word[:200])
            if word == "-" or not word.startswith(("-", "+")):
                return self._file(word) if word != "-" else Runs(kind="none")  # `-`: the script is stdin
            step = self._option(index)
            if isinstance(step, Runs):
                return step
            index = step
        return Runs(kind="none")

    def _option(self, index: int) -> int | Runs:
        """The index after the option at `index`, or what the command line runs when the option says it."""
        grammar, word = self.grammar, self.words[index]
        name, attached = _long(word)
        if grammar.clusters and not word.startswith("--"):
            return self._cluster(index)
        code = grammar.inline | grammar.module | grammar.script | grammar.loads
        if name in grammar.flags or (attached is None and name.startswith(grammar.flag_prefixes)):
            return index + 1
        if attached is not None and name not in code:
            return index + 1  # `--opt=value`: whatever it sets, the value cannot be the next word
        if word.startswith(grammar.valued_prefixes):
            return index + 1
        known = self._known()
        short = word[:2] if not word.startswith("--") and len(word) > 2 else None
        if short is not None and short in known:  # -rfoo, -Ilib: the value attached
            name, attached = short, word[2:]
        elif ":" in name and name.split(":", 1)[0] in grammar.loads:  # -javaagent:x.jar
            name, attached = name.split(":", 1)
        if name not in known:
            return Runs(kind="unread", target=word[:200])
        value = attached if attached is not None else self._next(index)
        if value is None:
            return Runs(kind="unread", target=word[:200])
        return self._valued(name, value, index + (1 if attached is not None else 2))

    def _valued(self, name: str, value: str, after: int) -> int | Runs:
        grammar = self.grammar
        if name in grammar.inline:
            return Runs(kind="inline")
        if name in grammar.module:
            return Runs(kind="module", target=value[:200])
        if name in grammar.script:
            return self._file(value)
        if name in grammar.loads:
            return Runs(kind="unread", target=f"{name} {value}"[:200])
        return after

    def _cluster(self, index: int) -> int | Runs:
        word = self.words[index]
        for position, letter in enumerate(word[1:], start=1):
            option = f"-{letter}"
            if option in self.grammar.flags:
                continue
            if option not in self._known():
                return Runs(kind="unread", target=word[:200])
            rest = word[position + 1 :]
            value = rest or self._next(index)
            if value is None:
                return Runs(kind="unread", target=word[:200])
            return self._valued(option, value, index + (1 if rest else 2))
        return index + 1

    def _known(self) -> frozenset[str]:
        grammar = self.grammar
        return grammar.valued | grammar.inline | grammar.module | grammar.script | grammar.loads

    def _next(self, index: int) -> str | None:
        return self.words[index + 1] if index + 1 < len(self.words) else None

    def _file(self, path: str) -> Runs:
        """A script named on the command line. A relative one is joined to the working folder read once (what
        the folder was when the interpreter started is unknown: it may have changed since); never trusted."""
        if not path:  # an empty word (a command line rewritten over, as node's process.title leaves it)
            return Runs(kind="none")
        if not path.startswith("/"):
            shown = os.path.normpath(os.path.join(self.cwd, path)) if self.cwd else path
            return Runs(kind="relative", target=shown[:4096])
        return Runs(kind="script", target=os.path.realpath(path)[:4096])


def _long(word: str) -> tuple[str, str | None]:
    """`--opt=value` → (`--opt`, `value`); any other word is an option without an attached value (yet)."""
    if word.startswith("--") and "=" in word:
        name, value = word.split("=", 1)
        return name, value
    return word, None


def runs_of(executable: str, argv: list[str], cwd: str) -> Runs | None:
    """What an interpreter agent runs; None when the executable is not an interpreter."""
    grammar = grammar_of(executable)
    return None if grammar is None else _Read(grammar, argv, cwd).runs()
