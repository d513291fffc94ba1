"""`jobs-tui mcp`: the MCP server over stdio, on the official SDK's low-level `Server`
and our own transport (`stdio`: every malformed line answered, a dead stdout ends it).

One server process is one session: `mcp-<pid>`, non-persistent (its jobs die with it
unless detached), or `--session NAME`, persistent like the command line's. Every tool
call goes through its vocabulary's adapter (`JobTools`, `ExecCommandTools`,
`ProcessTools`), which validates it once; a bad call, an unknown job or anything
unexpected comes back as a tool result with `isError` (never a protocol error) whose one
text content is the message, naming the field, and which has no `structuredContent`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from jobs_tui.engine.records.sanitize import sanitize_line
from jobs_tui.engine.tools import ExecCommandTools, JobTools, ProcessTools

from ..errors import EXIT_INTERRUPTED
from ..tty.scan import screen_scanner
from ..tty.text import render_lines, screen_delta
from .handshake import CHANNEL, SERVER_NAME, Early, listed_tool, server_version
from .modelview import model_result
from .notify import Notifier
from .resources import JobResources
from .shaping import DEFAULT_LIMIT, job_text, outcome, shape_details, vocabulary_text
from .stdio import Interrupt, stdio_transport
from .tooltable import ToolSpec, tool_table
from .waitcall import run_wait
from .wording import instructions

if TYPE_CHECKING:
    from mcp.server.context import CallNext, ServerRequestContext

    from jobs_tui.engine import JobManager

logger = logging.getLogger("jobs_tui.mcp")


@dataclass(frozen=True)
class Options:
    vocabulary: str = "job"
    session: str | None = None
    registry_dir: str | None = None
    limit: int = DEFAULT_LIMIT
    cwd: str = "."
    channel: bool = False  # --channel: Claude Code's claude/channel (finishes as messages)


class JobsMcp:
    """The tools, resources and notifications of one server process over one JobManager."""

    def __init__(self, manager: JobManager, options: Options) -> None:
        self.jm = manager
        self.options = options
        self.tools = tool_table(options.vocabulary, options.channel)
        # a terminal job's logs and `until`: its screen's rows, not its bytes' lines
        self.job_tools = JobTools(
            manager, render=render_lines, screen_scanner=screen_scanner(manager)
        )
        self.adapter: Any = {
            "job": self.job_tools,
            "exec_command": ExecCommandTools(manager, screen_delta=screen_delta),
            "process": ProcessTools(manager, render=render_lines, screen_delta=screen_delta),
        }[options.vocabulary]
        self.notifier = Notifier(manager, channel=options.channel)
        self.resources = JobResources(manager, options.limit)
        with warnings.catch_warnings():  # logging is deprecated only for 2026-07-28 clients
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            self.server: Server[Any] = Server(
                SERVER_NAME,
                version=server_version(),
                title=SERVER_NAME,
                instructions=instructions(options.channel, options.vocabulary),
                on_list_tools=self._list_tools,
                on_call_tool=self._call_tool,
                on_list_resources=self._list_resources,
                on_list_resource_templates=self._list_templates,
                on_read_resource=self._read_resource,
                on_subscribe_resource=self._subscribe,
                on_unsubscribe_resource=self._unsubscribe,
                on_subscriptions_listen=ListenHandler(self.notifier.bus),
                on_set_logging_level=self._set_level,
            )
        self.server.middleware.append(self._capture)

    # -- the connection ------------------------------------------------------------
    async def _capture(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        """The handshake-era connection, for notifications no request asked for."""
        if ctx.method != "initialize" and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self.notifier.attach(ctx.session)
        return await call_next(ctx)

    def initialization_options(self) -> Any:
        """The SDK's options, with `experimental["claude/channel"]` under --channel (as
        `handshake.capabilities` says: the early answer and this are one)."""
        experimental = {CHANNEL: {}} if self.options.channel else None
        return self.server.create_initialization_options(experimental_capabilities=experimental)

    async def run_stdio(self, early: Early | None = None, sigint: Interrupt | None = None) -> int:
        """Serve until stdin closes, stdout is gone or SIGINT; 1 if writing stdout failed
        (not the client leaving: a full disk, an I/O error), 130 after SIGINT."""
        loop = asyncio.get_running_loop()
        if sigint is None:
            sigint = _on_sigint()
        notifier = loop.create_task(self.notifier.run())
        try:
            async with stdio_transport(early=early) as wire:
                sigint.serving(wire)  # SIGINT ends the session as a closed stdin does
                await self.server.run(
                    wire.read_stream, wire.write_stream, self.initialization_options()
                )
            if sigint.seen:
                return EXIT_INTERRUPTED
            return 1 if wire.failed else 0
        finally:
            notifier.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await notifier
            self.notifier.close()

    # -- tools ---------------------------------------------------------------------
    async def _list_tools(self, _ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(spec) for spec in self.tools.values()])

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        spec = self.tools.get(params.name)
        if spec is None:
            names = ", ".join(self.tools)
            return _error(f"unknown tool {sanitize_line(params.name, 80)!r}; one of: {names}")
        args = params.arguments or {}
        try:
            details = await self._run(ctx, spec, args)
        except Exception as exc:  # never a protocol error, never a crash
            logger.exception("tool %s failed", spec.name)
            return _error(f"internal error in {spec.name}: {type(exc).__name__}: {exc}")
        failure = self._failure(spec, details, args)
        if failure is not None:
            return failure
        shaped = shape_details(details, self.options.limit)
        if spec.vocabulary == "job":  # the text and, for a model, the fields it acts on
            text = job_text(spec.target, shaped, self.options.channel)
            structured = model_result(spec.target, shaped)
        else:
            text, structured = vocabulary_text(shaped), shaped
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=structured
        )

    async def _run(
        self, ctx: ServerRequestContext[Any, Any], spec: ToolSpec, args: dict[str, Any]
    ) -> dict[str, Any]:
        if spec.vocabulary != "job":
            return await self.adapter.call(spec.target, args)
        if "action" in args:  # the tool is the action: a second one is a mistake
            return {"action": spec.target, "error": f"action is not a field of {spec.name}"}
        call = {"action": spec.target, **args}
        if spec.target != "wait":
            return await self.job_tools.call(call)
        return await run_wait(self.jm, self.job_tools, ctx, args, call)

    def _failure(
        self, spec: ToolSpec, details: dict[str, Any], args: dict[str, Any]
    ) -> types.CallToolResult | None:
        if spec.vocabulary == "job":
            failed = isinstance(details.get("error"), str) and set(details) <= {
                "action",
                "error",
                "errors",  # up, down: every error of the declared file
                "job",
            }
            if not failed:
                return None
            field = _job_field(self.jm, spec.target, args, details["error"])
        else:
            if details.get("status") != "error":
                return None
            field = details.get("field")
        message = sanitize_line(str(details.get("error")), 2000)
        if spec.vocabulary == "job":  # the tool is the action: name it as the model knows it
            message = message.replace(f"action '{spec.target}'", spec.name)
        text = message if field is None or field in message else f"{field}: {message}"
        line = outcome(details["job"]) if isinstance(details.get("job"), dict) else ""
        errors = details.get("errors") if isinstance(details.get("errors"), list) else []
        if len(errors) > 1:  # the file's every problem, one a line
            line = "\n".join(sanitize_line(str(e), 400) for e in errors[:50])
        return _error(f"{text}\n{line}" if line else text)  # the job it was about, in words

    # -- resources -----------------------------------------------------------------
    async def _list_resources(self, _ctx: Any, _params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=await self.resources.listing())

    async def _list_templates(self, _ctx: Any, _params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=self.resources.templates())

    async def _read_resource(
        self, _ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        contents = await self.resources.read(str(params.uri))
        return types.ReadResourceResult(contents=[contents])

    async def _subscribe(
        self, _ctx: Any, params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        await self.resources.check(str(params.uri))
        self.notifier.subscribed.add(str(params.uri))
        return types.EmptyResult()

    async def _unsubscribe(
        self, _ctx: Any, params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        self.notifier.subscribed.discard(str(params.uri))
        return types.EmptyResult()

    async def _set_level(self, _ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
        self.notifier.set_level(params.level)
        return types.EmptyResult()


def _tool(spec: ToolSpec) -> types.Tool:
    return types.Tool.model_validate(listed_tool(spec))  # the listing the handshake serves


def _error(text: str) -> types.CallToolResult:
    """A failed call as its message and nothing else: no `structuredContent`, which the
    TypeScript SDK would validate against the tool's output schema (written for results)
    and refuse, so the message would never reach the model (issue 23)."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _job_field(manager: JobManager, action: str, args: dict[str, Any], message: str) -> str | None:
    """The field a failed `job` call names: the schema's answer, else the id it acted on."""
    from jobs_tui.engine.tools.job import CallError, validate

    if "action" in args:
        return "action"
    try:
        validate({"action": action, **args}, session_cwd=manager.cwd)
    except CallError as exc:
        return exc.field
    for name in ("id", "ids"):
        if name in args and name in message:
            return name
    return "id" if "id" in args else None


# -- the process ---------------------------------------------------------------------
def session_of(options: Options) -> tuple[str, bool]:
    """(session id, persistent): `mcp-<pid>` and non-persistent unless --session names one."""
    name = (options.session or "").strip()
    if name:
        return name, True
    return f"mcp-{os.getpid()}", False


async def serve(options: Options, early: Early | None = None) -> int:
    from jobs_tui.engine import JobError, JobManager

    from ..session import unusable_registry

    sigint = _on_sigint()  # from here on, not asyncio's KeyboardInterrupt
    session, persistent = session_of(options)
    manager = JobManager(
        cwd=options.cwd,
        session_id=session,
        persistent=persistent,
        registry_dir_flag=options.registry_dir,
        door="mcp",
    )
    try:
        await manager.open()
    except (OSError, JobError) as exc:
        if isinstance(exc, JobError) and exc.field != "registry_dir":
            raise
        raise unusable_registry(exc, str(manager.dir), options.registry_dir) from exc
    manager.install_signal_handlers()
    from ..hook.registration import register, unregister  # how this agent's hooks find us

    own = manager.paths
    agent = register(
        session,
        own.registry_file(session),
        own.persist_lock(session),
        manager.config.wake_on_finish,
    )
    try:
        if sigint.seen:
            return EXIT_INTERRUPTED  # before the transport was up: nothing to serve
        return await JobsMcp(manager, options).run_stdio(early, sigint)
    finally:
        unregister(agent)
        with anyio.CancelScope(shield=True):
            await manager.close()  # non-detached jobs of a non-persistent session die here


def _on_sigint() -> Interrupt:
    sigint = Interrupt()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, sigint)
    return sigint


def run(options: Options, early: Early | None = None) -> int:
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="jobs-tui mcp: %(message)s"
    )
    return asyncio.run(serve(options, early))
