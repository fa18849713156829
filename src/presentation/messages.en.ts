/**
 * English text for {@link presentIncident}. Written for the person who watched
 * the run, not for an operator: no provider names, status codes or error text.
 * "Model service" stands for the provider throughout, "tool" for a tool.
 */
import type { MessageCatalog } from './message-catalog.js';

/** The English message catalog (default locale of `presentIncident`). */
export const MESSAGES_EN: MessageCatalog = {
  separator: ' ',
  success: {
    title: 'Run completed',
    message: 'The run finished normally.',
    action: 'No action needed.',
  },
  recovered: {
    title: 'Recovered after a retry',
    message: 'The run recovered after a retry and finished normally.',
    messageWithoutCause: 'The run hit a brief problem, recovered after a retry and finished normally.',
    action: 'No action needed.',
  },
  incompleteNote: "Part of the run's record is missing, so some details may be unclear.",
  causes: {
    provider_transport_disconnect: {
      title: 'Connection to the model service dropped',
      message: 'The connection to the model service was lost before the reply was complete.',
      details: {
        socket_closed: { message: 'The model service closed the connection before the reply was complete.' },
        connection_reset: { message: 'The connection to the model service was reset before the reply was complete.' },
        stream_terminated: { message: 'The reply from the model service was cut off partway through.' },
        tls: {
          title: 'Could not connect securely to the model service',
          message: 'A secure connection to the model service could not be set up.',
          fix: 'Check the network, proxy or certificate settings, then try again.',
        },
      },
    },
    provider_api_error: {
      title: 'The model service returned an error',
      message: 'The model service could not complete the request.',
      details: {
        auth: {
          title: 'The model service rejected the credentials',
          message: 'The model service did not accept the API key or access rights in use.',
          fix: 'Check the API key and access settings for the model service.',
        },
        rate_limit: {
          title: 'Too many requests to the model service',
          message: 'The model service was limiting how many requests could be sent.',
          fix: 'Wait a moment, then try again.',
        },
        quota_exhausted: {
          title: 'Model service quota used up',
          message: 'The account has used up its quota or credit with the model service.',
          fix: 'Check the plan or billing for the model service, then try again.',
        },
        server_overload: {
          title: 'The model service is overloaded',
          message: 'The model service was too busy to answer.',
          fix: 'Wait a little, then try again.',
        },
        invalid_request: {
          title: 'The model service rejected the request',
          message: 'The model service could not accept the request as it was sent.',
          fix: 'Change the request or the settings, then try again.',
        },
        context_overflow: {
          title: 'The conversation is too long',
          message: 'The conversation is longer than the model can handle in one request.',
          fix: 'Shorten the conversation or start a new one.',
        },
        content_filter: {
          title: 'The request was blocked by a content policy',
          message: 'The model service declined the request under its content policy.',
          fix: 'Rephrase the request, then try again.',
        },
      },
    },
    watchdog_timeout: {
      title: 'The model service took too long',
      message: 'The model service did not respond in time.',
      details: {
        connect: {
          title: 'The model service did not respond',
          message: 'The model service did not start replying in time.',
        },
        silent_stream: {
          title: 'The reply stalled',
          message: 'The reply from the model service stopped arriving partway through.',
        },
        total: { title: 'The reply took too long', message: 'The reply took longer than the time allowed for it.' },
      },
    },
    user_cancel: {
      title: 'You stopped the run',
      message: 'The run was stopped at your request.',
      details: {
        client_disconnect: {
          title: 'The run stopped when the page was closed',
          message: 'The page or app the run was shown in was closed, so the run stopped.',
        },
      },
      // Stopping is the user's choice: describe what is kept and how to pick up again, never a fault.
      safety: {
        auto_retry: { note: 'Nothing had been shown or run yet.', action: 'Start it again whenever you like.' },
        offer_continue: {
          note: 'What was shown so far is kept.',
          action: 'Continue from where it stopped whenever you like.',
        },
        ask_user_before_retry: {
          note: 'A tool may already have done part of its work.',
          action: 'Check what the tool did before starting again.',
        },
        do_not_retry: {
          note: 'Nothing more will happen unless you start it again.',
          action: 'Start it again whenever you are ready.',
        },
        unknown: { note: '', action: 'Look over the conversation so far before starting again.' },
      },
    },
    local_lifecycle_close: {
      title: 'The app closed the run',
      message: 'The run was closed because the app reloaded or shut down.',
      details: {
        instance_reload: { message: 'The run was closed because the app reloaded.' },
        instance_dispose: { message: 'The run was closed because the app closed the session it was running in.' },
        shutdown: { message: 'The run was closed because the app shut down.' },
      },
      // The host chose to stop; "retrying will not help" would be wrong, starting again will.
      safety: { do_not_retry: { note: '', action: 'Start the run again once the app is ready.' } },
    },
    request_setup_failure: {
      title: 'The request could not be prepared',
      message: 'Something went wrong while preparing the request, before anything was sent to the model service.',
    },
    tool_execution_failure: {
      title: 'A tool did not complete',
      message: 'A tool the assistant used ran into a problem, and the run ended there.',
      details: {
        invalid_arguments: {
          message: 'A tool was called with input it could not accept.',
          fix: 'Rephrase the request so the tool gets valid input, then try again.',
        },
        permission_denied: {
          title: 'A tool was not allowed to run',
          message: 'A tool did not have permission to do what it was asked.',
          fix: "Check the tool's permissions, then try again.",
        },
        environment: {
          message: 'A tool could not find a file, command or resource it needed.',
          fix: 'Make sure the files and commands the tool needs are available, then try again.',
        },
        timeout: { title: 'A tool took too long', message: 'A tool did not finish in the time allowed.' },
        provider: { message: 'An online service the tool relies on did not answer as expected.' },
      },
    },
    tool_execution_interrupted: {
      title: 'A tool was interrupted',
      message: 'A tool was stopped before it finished.',
    },
    process_exit: {
      title: 'The agent stopped unexpectedly',
      message: 'The agent process ended before the run was complete.',
      details: {
        exit_nonzero: { message: 'The agent process exited with an error before the run was complete.' },
        signal: { message: 'The agent process was stopped by the system before the run was complete.' },
        stream_error: { message: 'The connection to the agent process broke before the run was complete.' },
        fatal_rpc_error: { message: 'The connection to the agent process broke before the run was complete.' },
        spawn_failed: {
          title: 'The agent could not start',
          message: 'The agent process could not be started.',
          fix: "Check the agent's installation and settings, then try again.",
        },
        cli_not_installed: {
          title: 'The agent is not installed',
          message: 'The command-line program that runs the agent could not be found.',
          fix: "Install the agent's command-line program, then try again.",
        },
        empty_output: { message: 'The agent process ended without producing any output.' },
      },
    },
    crash_or_restart_incomplete: {
      title: 'The run did not finish',
      message: 'The run never reached an end, possibly because the app crashed or restarted.',
      details: {
        restart_detected: { message: 'The app restarted while the run was in progress.' },
      },
    },
    unknown_interruption: {
      title: 'The run was interrupted',
      message: 'Something interrupted the run, and the exact cause is not known.',
    },
  },
  phases: {
    setup: 'This happened before the request was sent.',
    before_first_provider_progress: 'This happened before any reply arrived.',
    reasoning_generation: 'This happened while the model was thinking, before any text was shown.',
    text_generation: 'This happened after some text was shown.',
    tool_input_generation: 'This happened while the model was preparing a tool call.',
    tool_call_materialized: 'This happened after a tool call was ready but before it ran.',
    tool_execution: 'This happened while a tool was running.',
    after_tool_result: 'This happened after a tool had finished.',
    finalizing: 'This happened as the reply was finishing.',
    unknown: '',
  },
  safeties: {
    auto_retry: {
      note: 'Nothing had been shown or run yet, so it is safe to try again.',
      action: 'Try again; the app may already be retrying automatically.',
    },
    offer_continue: { note: 'What was shown so far is kept.', action: 'Continue from where it stopped.' },
    ask_user_before_retry: {
      note: 'A tool may already have run, so trying again could repeat what it did.',
      action: 'Check what the tool did before retrying.',
    },
    do_not_retry: {
      note: 'Trying again as it is will not change the result.',
      action: 'Do not retry as it is; change the request or settings first.',
    },
    unknown: {
      note: 'It is not clear whether trying again is safe.',
      action: 'Check what happened so far, then decide whether to retry.',
    },
  },
  reasons: {
    retry_budget_exhausted: {
      note: 'Automatic retries have been used up.',
      action: 'Try again yourself if you still want the result.',
    },
    unsafe_side_effect_started: {
      note: 'A tool that can make changes had already started, so trying again could repeat those changes.',
    },
    side_effect_facts_incomplete: {
      note: 'It is not known whether a tool already made changes, so trying again could repeat them.',
    },
  },
  recovery: {
    actions: {
      resume: { note: 'It will continue from the last saved point.', action: 'No action needed; it is resuming.' },
      reassign: {
        note: 'The task will be started again from the beginning.',
        action: 'No action needed; it will be tried again.',
      },
      fail: {
        note: 'The task has used all its retries.',
        action: 'Start it again yourself if you still want the result.',
      },
    },
    reasons: {
      retry_budget_exhausted: {
        note: 'Automatic retries have been used up.',
        action: 'Try again yourself if you still want the result.',
      },
      retry_after_too_long: {
        note: 'The model service asked to wait longer than the app retries on its own.',
        action: 'Try again later.',
      },
      side_effects_unconfirmed: {
        note: 'It was not resumed automatically because a tool may already have made changes.',
        action: 'Check what the tool did, then resume or start again.',
      },
    },
  },
};
