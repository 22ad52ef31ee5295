"""Fetching a tab's outline through the debugger: its frames (an out-of-process frame through its own
session), the page-side walk of each frame in Tabgate's isolated world, which iframe shows which frame, and
the debugger's node ids of the nodes an answer named (so a ref acts like any node the debugger names)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from core.browser.context import PageContext
from core.browser.executor import Command, TabState
from core.browser.refs import FrameSite, LoneFrame, NodeRef, PageKey, RefTable
from core.browser.snapshot import FrameTree, Node, parse, walk_keys
from core.browser.walker import NODES, VERSION, WALK, WORLD
from core.calls.tab_scope import site_of

type FrameId = tuple[str | None, str]  # (session, frame id)
# How many nodes a find keeps whole (and caches as the page's outline); above it only the candidates come.
FIND_KEEPS_ALL = 20_000


@dataclass(frozen=True, slots=True)
class _Frame:
    id: str
    parent: str | None
    url: str
    session: str | None
    origin: str = ""  # Chrome's securityOrigin of its document


@dataclass(slots=True)
class Walked:
    """A walk of the whole tab: each frame's tree, the world each was walked in and the document version it
    saw (to tell later whether the page changed), and whether any walk stopped early or left nodes out."""

    state: TabState
    frames: list[FrameTree]
    contexts: dict[FrameId, int] = field(default_factory=dict)
    versions: dict[FrameId, tuple[str, int]] = field(default_factory=dict)
    partial: bool = False
    # A find's walk that answered only the candidate nodes: no outline to read on in or to find in again.
    narrowed: bool = False
    # Each child frame's site, and the child frame each <iframe> node shows (acting there is asked for it).
    sites: dict[FrameId, FrameSite] = field(default_factory=dict)
    shows: dict[PageKey, FrameSite] = field(default_factory=dict)
    lone: LoneFrame | None = None  # the document was one frame, walked in this world

    def tell(self, table: RefTable) -> None:
        """The ref table learns how to reach this walk's frames and which site each child frame shows."""
        table.contexts = self.contexts
        table.saw_frames(self.sites, self.shows)
        table.lone_frame = self.lone


def _collect(
    tree: dict[str, Any],
    parent: str | None,
    session: str | None,
    out: dict[str, _Frame],
    oopif: dict[str, str],
) -> None:
    frame = tree["frame"]
    own = oopif.get(frame["id"], session)
    url, origin = str(frame.get("url", "")), str(frame.get("securityOrigin", ""))
    known = out.get(frame["id"])
    if known is None:
        out[frame["id"]] = _Frame(frame["id"], parent, url, own, origin)
    elif not known.url:  # an out-of-process frame says its own address in its own session
        out[frame["id"]] = replace(known, url=url, origin=origin)
    for child in tree.get("childFrames", ()):
        _collect(child, frame["id"], own, out, oopif)


async def _frames(ctx: PageContext, tab_id: int | None) -> tuple[TabState, list[_Frame]]:
    """Every frame of the tab, with the session that reaches it (an out-of-process frame has its own)."""
    answer = await ctx.cdp.run(tab_id, [Command("Page.getFrameTree")])
    state = answer.state
    oopif = {s.target_id: s.id for s in state.sessions}
    frames: dict[str, _Frame] = {}
    _collect(answer.result(0, "frame tree")["frameTree"], None, None, frames, oopif)
    if state.sessions:  # an out-of-process frame and its own frames are known to its session only
        trees = await ctx.cdp.run(
            state.tab_id, [Command("Page.getFrameTree", {}, s.id) for s in state.sessions], parallel=True
        )
        for session, outcome in zip(state.sessions, trees.results, strict=False):
            if isinstance(outcome, dict) and "frameTree" in outcome:
                _collect(outcome["frameTree"], None, session.id, frames, oopif)
    return state, list(frames.values())


def _withheld(frame: _Frame, granted: set[str], top_origin: str | None) -> str | None:
    if frame.url in ("", "about:blank", "about:srcdoc"):
        return None
    origin = site_of(frame.url)
    if origin is None:
        return f"{urlsplit(frame.url).scheme}: frame, not a web page"
    if origin != top_origin and origin not in granted:
        return f"a frame from {origin}, which Tabgate has no access to (grant it to see inside)"
    return None


async def _shown(ctx: PageContext, state: TabState, frames: list[_Frame]) -> dict[str, str | None]:
    """Each frame's id, and why it is not shown (None: it is), from the grants of the frames' sites."""
    top_origin = site_of(state.url)
    others = sorted({o for f in frames if (o := site_of(f.url)) is not None and o != top_origin})
    granted = await ctx.cdp.granted(others)
    return {f.id: _withheld(f, granted, top_origin) for f in frames}


@dataclass(frozen=True, slots=True)
class KeptBack:
    """What an image of the tab must not show: each frame not shown in its outline or, for one inside a frame
    of another process, the outermost frame holding it that the tab's own process lays out (the debugger knows
    that frame's box in the tab's coordinates); the tab's own process's frames (top first) and the parent of
    each of them known (where its <iframe> is; an out-of-process frame's parent is not in the trees)."""

    state: TabState
    kept: list[str]
    in_process: list[str]
    parents: dict[str, str]


async def frames_kept_back(ctx: PageContext, tab_id: int | None) -> KeptBack:
    state, frames = await _frames(ctx, tab_id)
    shown = await _shown(ctx, state, frames)
    by_id = {f.id: f for f in frames}
    kept: dict[str, None] = {}
    for frame in frames[1:]:
        if shown[frame.id] is None:
            continue
        outer = frame
        while (parent := by_id.get(outer.parent or "")) is not None and parent.session is not None:
            outer = parent
        kept[outer.id] = None
    in_process = [f.id for f in frames if f.session is None]
    parents = {f.id: f.parent for f in frames[1:] if f.parent is not None and f.parent in in_process}
    return KeptBack(state, list(kept), in_process, parents)


_INHERITS = ("about:", "data:")  # a frame whose content its parent wrote


def _frame_sites(frames: list[_Frame]) -> dict[FrameId, FrameSite]:
    """Each child frame's site: its URL's, else its document's origin (about:blank), else its parent's (a
    srcdoc or data: frame shows what its parent wrote), checked on the frame that gave it."""
    by_id = {f.id: f for f in frames}

    def site(frame: _Frame) -> FrameSite:
        own = site_of(frame.url) or site_of(frame.origin)
        parent = by_id.get(frame.parent) if frame.parent is not None else None
        if own is not None or parent is None or not frame.url.startswith(_INHERITS):
            return FrameSite(own, frame.session, frame.id)
        return site(parent)

    return {(f.session, f.id): site(f) for f in frames[1:]}


def _owner_queries(frames: list[_Frame], top: _Frame) -> list[tuple[_Frame, str | None]]:
    """Where to ask for each frame's <iframe> element: its parent's session, or, for an out-of-process frame
    whose parent is not known, every other session (the one that has it answers)."""
    by_id = {f.id: f for f in frames}
    sessions = list(dict.fromkeys(f.session for f in frames))
    queries: list[tuple[_Frame, str | None]] = []
    for frame in frames:
        if frame is top:
            continue
        if frame.parent is not None:
            queries.append((frame, by_id[frame.parent].session))
        else:
            queries += [(frame, s) for s in sessions if s != frame.session]
    return queries


def _call(context: int, session: str | None, function: str, *args: Any, by_value: bool = True) -> Command:
    params: dict[str, Any] = {
        "functionDeclaration": function,
        "executionContextId": context,
        "arguments": [{"value": a} for a in args],
        "returnByValue": by_value,
    }
    if not by_value:
        params["objectGroup"] = WORLD
    return Command("Runtime.callFunctionOn", params, session)


def _value(outcome: Any) -> Any:
    if not isinstance(outcome, dict) or "exceptionDetails" in outcome:
        return None
    return outcome.get("result", {}).get("value")


async def walk_page(
    ctx: PageContext,
    tab_id: int | None,
    *,
    budget: int,
    root: PageKey | None = None,
    match: dict[str, Any] | None = None,
) -> Walked:
    """Walks every frame the user may see (`budget`: about how many characters of outline to find; `root`:
    only that node's subtree in its frame; `match`: a find, which may leave out nodes that cannot match)."""
    walk = partial(_walk, budget=budget, root=root, match=match)
    table = ctx.refs.table_of(tab_id) if tab_id is not None else None
    lone = table.lone_frame if table is not None else None
    if table is not None and lone is not None:
        # The document was one frame: walk it alone unless its frames (or the document) changed since.
        frame = _Frame(lone.frame_id, None, lone.url, None)
        answer = await ctx.cdp.run(tab_id, [walk(lone.context, frame)], epoch=table.epoch, frames=lone.frames)
        walked = Walked(answer.state, [], {(None, frame.id): lone.context}, lone=lone)
        trees = _read_walks(walked, [frame], answer.results)
        if trees:
            walked.frames = [FrameTree(frame.id, None, None, frame.url, trees[frame.id])]
            return walked
    return await _walk_frames(ctx, tab_id, walk)


def _walk(context: int, frame: _Frame, *, budget: int, root: PageKey | None, match: Any) -> Command:
    """The page-side walk of one frame, in its isolated world."""
    under = root.id if root is not None and root.frame_id == frame.id else None
    return _call(context, frame.session, WALK, budget, under, match)


def _read_walks(walked: Walked, frames: list[_Frame], results: Iterable[Any]) -> dict[str, list[Node]]:
    """Each frame's nodes from its walk's answer (none for a frame whose walk did not answer)."""
    roots: dict[str, list[Node]] = {}
    for frame, outcome in zip(frames, results, strict=False):
        result = _value(outcome)
        if not isinstance(result, dict) or result.get("nodes") is None:
            continue
        doc = str(result["doc"])
        walked.versions[(frame.session, frame.id)] = (doc, int(result["version"]))
        walked.narrowed |= bool(result.get("narrowed"))
        walked.partial |= bool(result.get("cut")) or walked.narrowed
        roots[frame.id] = parse(result["nodes"], (frame.session, frame.id, doc), cut=bool(result.get("cut")))
    return roots


async def _walk_frames(
    ctx: PageContext, tab_id: int | None, walk: Callable[[int, _Frame], Command]
) -> Walked:
    """Finds the tab's frames and their worlds, then walks each frame the user may see."""
    state, frames = await _frames(ctx, tab_id)
    top = frames[0]
    shown = await _shown(ctx, state, frames)
    visible = [f for f in frames if shown[f.id] is None]
    owners = _owner_queries(frames, top)
    worlds = [
        Command("Page.createIsolatedWorld", {"frameId": f.id, "worldName": WORLD}, f.session) for f in visible
    ]
    owner_commands = [Command("DOM.getFrameOwner", {"frameId": f.id}, s) for f, s in owners]
    answer = await ctx.cdp.run(state.tab_id, worlds + owner_commands, parallel=True)
    walked = Walked(answer.state, [])
    for frame, outcome in zip(visible, answer.results, strict=False):
        if isinstance(outcome, dict) and "executionContextId" in outcome:
            walked.contexts[(frame.session, frame.id)] = int(outcome["executionContextId"])
    owner_ids: dict[str, tuple[int, str | None]] = {}
    for (frame, session), outcome in zip(owners, answer.results[len(worlds) :], strict=False):
        if isinstance(outcome, dict) and "backendNodeId" in outcome:
            owner_ids.setdefault(frame.id, (int(outcome["backendNodeId"]), session))
    reachable = [f for f in visible if (f.session, f.id) in walked.contexts]
    walks = [walk(walked.contexts[(f.session, f.id)], f) for f in reachable]
    answer = await ctx.cdp.run(state.tab_id, walks, parallel=True)
    roots = _read_walks(walked, reachable, answer.results)
    # One frame, and none changed while it was walked (a page that keeps changing them is not walked alone).
    if frames == [top] and not state.sessions and top.id in roots and answer.state.frames == state.frames:
        walked.lone = LoneFrame(state.frames, top.id, top.url, walked.contexts[(None, top.id)])
    trees = [
        FrameTree(
            frame.id,
            None if frame is top else (frame.parent or top.id),
            frame.session,
            frame.url,
            roots.get(frame.id, []),
            withheld=shown[frame.id],
        )
        for frame in frames
    ]
    walked.frames = await _owners(ctx, walked, trees, owner_ids)
    walked.sites = _frame_sites(frames)
    walked.shows = {
        tree.owner: walked.sites[(tree.session, tree.frame_id)]
        for tree in walked.frames
        if tree.owner is not None and (tree.session, tree.frame_id) in walked.sites
    }
    return walked


async def _owners(
    ctx: PageContext, walked: Walked, trees: list[FrameTree], owner_ids: Mapping[str, tuple[int, str | None]]
) -> list[FrameTree]:
    """Each child frame with the key of the <iframe> that shows it (matched by the debugger's node id)."""
    if not owner_ids:
        return trees
    iframes = list(walk_keys(trees, "Iframe"))
    found = await resolve(ctx, walked.state.tab_id, walked.contexts, iframes)
    by_node = {(n.session, n.backend_id): key for key, n in found.items() if n is not None}
    out = []
    for tree in trees:
        backend, session = owner_ids.get(tree.frame_id, (None, None))
        owner = by_node.get((session, backend)) if backend is not None else None
        out.append(
            FrameTree(tree.frame_id, tree.parent_id, tree.session, tree.url, tree.roots, owner, tree.withheld)
        )
    return out


async def resolve(
    ctx: PageContext, tab_id: int, contexts: Mapping[FrameId, int], keys: Iterable[PageKey]
) -> dict[PageKey, NodeRef | None]:
    """The debugger's node for each key (None: the node is gone, or its frame's document is)."""
    groups: dict[tuple[str | None, str, str], list[PageKey]] = defaultdict(list)
    out: dict[PageKey, NodeRef | None] = {}
    for key in keys:
        if (key.session, key.frame_id) in contexts:
            groups[(key.session, key.frame_id, key.doc)].append(key)
        else:
            out[key] = None
    if not groups:
        return out
    order = list(groups)
    arrays = [
        _call(contexts[(s, f)], s, NODES, doc, [k.id for k in groups[(s, f, doc)]], by_value=False)
        for s, f, doc in order
    ]
    answer = await ctx.cdp.run(tab_id, arrays, parallel=True)
    listings = []
    for (session, _, _), outcome in zip(order, answer.results, strict=False):
        object_id = outcome.get("result", {}).get("objectId") if isinstance(outcome, dict) else None
        listings.append(
            Command("Runtime.getProperties", {"objectId": object_id, "ownProperties": True}, session)
        )
    answer = await ctx.cdp.run(tab_id, listings, parallel=True)
    wanted: list[tuple[PageKey, Command]] = []
    for group, outcome in zip(order, answer.results, strict=False):
        elements = {
            int(p["name"]): p["value"].get("objectId")
            for p in (outcome.get("result", ()) if isinstance(outcome, dict) else ())
            if p.get("name", "").isdigit() and isinstance(p.get("value"), dict)
        }
        for index, key in enumerate(groups[group]):
            object_id = elements.get(index)
            if object_id is None:
                out[key] = None
            else:
                wanted.append((key, Command("DOM.describeNode", {"objectId": object_id}, key.session)))
    sessions = {s for s, _, _ in order}
    release = [Command("Runtime.releaseObjectGroup", {"objectGroup": WORLD}, s) for s in sessions]
    answer = await ctx.cdp.run(tab_id, [c for _, c in wanted] + release, parallel=True)
    for (key, _), outcome in zip(wanted, answer.results, strict=False):
        backend = outcome.get("node", {}).get("backendNodeId") if isinstance(outcome, dict) else None
        out[key] = None if backend is None else NodeRef(key.session, int(backend), key.frame_id)
    return out


async def name_nodes(ctx: PageContext, tab_id: int, table: RefTable, contexts: Mapping[FrameId, int]) -> None:
    """Looks up the debugger's node of every ref named since the last look-up."""
    keys = table.unresolved()
    if keys:
        for key, node in (await resolve(ctx, tab_id, contexts, keys)).items():
            table.resolved(key, node)


async def unchanged(ctx: PageContext, tab_id: int, walked: Walked) -> bool:
    """Whether every frame's document is the one walked, with nothing in it changed since."""
    frames = list(walked.versions)
    checks = [_call(walked.contexts[f], f[0], VERSION) for f in frames]
    answer = await ctx.cdp.run(tab_id, checks, parallel=True)
    return same_page(walked, answer.state.epoch, [_value(outcome) for outcome in answer.results])


def same_page(walked: Walked, epoch: int, versions: list[Any]) -> bool:
    """Whether the page is the one walked: the same top-level document, and each frame's world answering
    the document and version the walk saw (a reloaded frame answers another document, or no world at all)."""
    if epoch != walked.state.epoch or len(versions) != len(walked.versions):
        return False
    return all(answer == list(seen) for answer, seen in zip(versions, walked.versions.values(), strict=True))
