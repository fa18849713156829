"""A Python agent that records the native agent-incidents convention by hand.

It uses only the OpenTelemetry Python SDK and its OTLP/HTTP protobuf exporter
(see requirements.txt), nothing from this package, and plays two runs:

  stream-drop   the provider stream drops after text started (undici-style
                socket close, UND_ERR_SOCKET)
  tool-failure  the model calls `bash`, the attempt finishes, and the tool
                fails with EACCES (a real exec of a file without the x bit)

Usage: python agent.py [OTLP traces endpoint]
The endpoint defaults to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. Prints one JSON line naming the
runs (conversation id, agent name, trace id) and how many spans were exported;
exits 1 when the export failed.
"""

import errno
import json
import os
import stat
import subprocess
import sys
import tempfile

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

PROVIDER = "openai"
MODEL = "gpt-4o"
# The side-effect boundary of every request: the tools exposed to the model, by class.
READ_ONLY_TOOLS = ["read", "grep"]
UNSAFE_TOOLS = ["bash"]


def endpoint_from(argv):
    if len(argv) > 1 and argv[1]:
        return argv[1]
    if os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        return os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        return os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + "/v1/traces"
    sys.exit("usage: agent.py <OTLP/HTTP traces endpoint> (or set OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)")


class CountingExporter(SpanExporter):
    """Delegates to the OTLP exporter and remembers whether every export succeeded."""

    def __init__(self, inner):
        self.inner = inner
        self.exported = 0
        self.failed = 0

    def export(self, spans):
        result = self.inner.export(spans)
        if result == SpanExportResult.SUCCESS:
            self.exported += len(spans)
        else:
            self.failed += len(spans)
        return result

    def shutdown(self):
        self.inner.shutdown()

    def force_flush(self, timeout_millis=30000):
        return self.inner.force_flush(timeout_millis)


class Run:
    """One agent run: the invoke_agent span and one fact sequence shared by all its spans."""

    def __init__(self, tracer, agent_name, conversation_id):
        self.tracer = tracer
        self.seq = 0
        self.attempts = 0
        self.span = tracer.start_span(
            f"invoke_agent {agent_name}",
            kind=SpanKind.INTERNAL,
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": agent_name,
                "gen_ai.conversation.id": conversation_id,
                "gen_ai.provider.name": PROVIDER,
                "gen_ai.request.model": MODEL,
            },
        )
        self.context = trace.set_span_in_context(self.span)

    def fact(self, span, name, **attributes):
        self.seq += 1
        span.add_event(name, {**attributes, "agent_incidents.seq": self.seq})

    def start_attempt(self):
        self.attempts += 1
        attempt = self.tracer.start_span(
            f"chat {MODEL}",
            kind=SpanKind.CLIENT,
            context=self.context,
            attributes={
                "gen_ai.operation.name": "chat",
                "agent_incidents.attempt.number": self.attempts,
                "gen_ai.provider.name": PROVIDER,
                "gen_ai.request.model": MODEL,
                "gen_ai.request.stream": True,
            },
        )
        self.fact(attempt, "agent_incidents.side_effect_boundary", **{
            "agent_incidents.boundary.read_only_tools": READ_ONLY_TOOLS,
            "agent_incidents.boundary.unsafe_tools": UNSAFE_TOOLS,
            "agent_incidents.boundary.unknown_tools": [],
            "agent_incidents.boundary.provider_executed_tools": [],
            "agent_incidents.boundary.external": False,
        })
        return attempt

    def start_tool(self, attempt, name, call_id, side_effects):
        return self.tracer.start_span(
            f"execute_tool {name}",
            kind=SpanKind.INTERNAL,
            context=self.context,
            links=[Link(attempt.get_span_context())],
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call_id,
                "agent_incidents.tool.side_effects": side_effects,
            },
        )

    def end(self):
        self.span.end()


def stream_drop(tracer):
    """Run (a): text streams, then the socket closes under the stream."""
    run = Run(tracer, "py-stream-drop", "python-agent-stream-drop")
    attempt = run.start_attempt()
    try:
        # The provider reported the input at the start of the stream (as Anthropic's message_start does).
        attempt.set_attribute("gen_ai.usage.input_tokens", 1200)
        attempt.set_attribute("gen_ai.usage.cache_read.input_tokens", 1024)
        run.fact(attempt, "agent_incidents.text_output_started")  # implies provider progress
        # What a streaming HTTP client reports when the server closes the socket mid-body.
        raise ConnectionError("other side closed")
    except ConnectionError as error:
        run.fact(attempt, "agent_incidents.provider_error", **{
            "agent_incidents.error.kind": "transport",
            "agent_incidents.error.detail": "socket_closed",
            "agent_incidents.error.code": "UND_ERR_SOCKET",
            "agent_incidents.error.retryable": True,
        })
        attempt.set_status(Status(StatusCode.ERROR, str(error)))
        attempt.set_attribute("error.type", "UND_ERR_SOCKET")
    finally:
        attempt.end()
    run.end()
    return run


def run_bash(script):
    """The agent's `bash` tool: executes a script file."""
    subprocess.run([script], check=True, capture_output=True)


def tool_failure(tracer, workdir):
    """Run (b): the model calls bash, its stream finishes, and bash fails with EACCES."""
    run = Run(tracer, "py-tool-failure", "python-agent-tool-failure")
    attempt = run.start_attempt()
    call_id = "call_bash_1"
    run.fact(attempt, "agent_incidents.tool_call_materialized", **{
        "gen_ai.tool.name": "bash",
        "gen_ai.tool.call.id": call_id,
        "agent_incidents.tool.side_effects": "unsafe",
        "agent_incidents.tool.provider_executed": False,
    })
    run.fact(attempt, "agent_incidents.attempt_finished")
    attempt.end()

    # A script without the execute bit: exec fails with EACCES (for root too).
    script = os.path.join(workdir, "deploy.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho deployed\n")
    os.chmod(script, stat.S_IRUSR | stat.S_IWUSR)

    tool = run.start_tool(attempt, "bash", call_id, "unsafe")
    try:
        run_bash(script)
        raise RuntimeError("the bash tool was expected to fail with EACCES")
    except PermissionError as error:
        code = errno.errorcode.get(error.errno, "EACCES")
        run.fact(tool, "agent_incidents.tool_execution_failed", **{
            "agent_incidents.tool.failure_kind": "permission_denied",
            "agent_incidents.error.code": code,
        })
        tool.set_status(Status(StatusCode.ERROR, "permission denied"))
        tool.set_attribute("error.type", code)
    finally:
        tool.end()
    run.end()
    return run


def main(argv):
    endpoint = endpoint_from(argv)
    exporter = CountingExporter(OTLPSpanExporter(endpoint=endpoint, timeout=10))
    provider = TracerProvider(resource=Resource.create({"service.name": "python-agent"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("python-agent", "0.1.0")

    with tempfile.TemporaryDirectory() as workdir:
        runs = [stream_drop(tracer), tool_failure(tracer, workdir)]

    flushed = provider.force_flush(timeout_millis=15000)
    provider.shutdown()
    summary = {
        "endpoint": endpoint,
        "flushed": flushed,
        "exported_spans": exporter.exported,
        "failed_spans": exporter.failed,
        "runs": [
            {
                "conversation_id": run.span.attributes["gen_ai.conversation.id"],
                "agent_name": run.span.attributes["gen_ai.agent.name"],
                "trace_id": format(run.span.get_span_context().trace_id, "032x"),
            }
            for run in runs
        ],
    }
    print(json.dumps(summary))
    return 0 if flushed and exporter.failed == 0 and exporter.exported > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
