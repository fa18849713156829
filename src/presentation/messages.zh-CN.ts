/**
 * 简体中文文案，供 {@link presentIncident} 使用。
 *
 * Terminology is fixed across the table so the UI reads as one voice:
 * 模型服务 = provider, 工具 = tool, 重试 = retry, 运行 = run, 智能体 = agent,
 * and 你 (not 您) throughout. Sentences end with full-width punctuation and are
 * joined without spaces.
 */
import type { MessageCatalog } from './message-catalog.js';

/** The Simplified Chinese message catalog (`locale: 'zh-CN'`). */
export const MESSAGES_ZH_CN: MessageCatalog = {
  separator: '',
  success: {
    title: '运行已完成',
    message: '本次运行已正常完成。',
    action: '无需任何操作。',
  },
  recovered: {
    title: '重试后已恢复',
    message: '重试后已恢复，运行正常完成。',
    messageWithoutCause: '运行中出现了短暂问题，重试后已恢复，并正常完成。',
    action: '无需任何操作。',
  },
  incompleteNote: '本次运行的部分记录缺失，有些细节可能不够准确。',
  causes: {
    provider_transport_disconnect: {
      title: '与模型服务的连接中断',
      message: '回复尚未完成，与模型服务的连接就断开了。',
      details: {
        socket_closed: { message: '回复尚未完成，模型服务就关闭了连接。' },
        connection_reset: { message: '回复尚未完成，与模型服务的连接就被重置了。' },
        stream_terminated: { message: '模型服务的回复在中途被截断了。' },
        tls: {
          title: '无法与模型服务建立安全连接',
          message: '未能与模型服务建立安全连接。',
          fix: '请检查网络、代理或证书设置，然后再试。',
        },
      },
    },
    provider_api_error: {
      title: '模型服务返回了错误',
      message: '模型服务未能完成这次请求。',
      details: {
        auth: {
          title: '模型服务拒绝了访问凭据',
          message: '模型服务不接受当前使用的 API 密钥或访问权限。',
          fix: '请检查模型服务的 API 密钥和访问权限设置。',
        },
        rate_limit: {
          title: '模型服务请求过于频繁',
          message: '模型服务暂时限制了请求频率。',
          fix: '请稍等片刻，然后再试。',
        },
        quota_exhausted: {
          title: '模型服务额度已用完',
          message: '当前账户在模型服务上的额度或余额已经用完。',
          fix: '请检查模型服务的套餐或账单，然后再试。',
        },
        server_overload: {
          title: '模型服务繁忙',
          message: '模型服务当前负载过高，暂时无法响应。',
          fix: '请稍后再试。',
        },
        invalid_request: {
          title: '模型服务拒绝了这次请求',
          message: '模型服务无法处理按当前方式发出的请求。',
          fix: '请调整请求内容或设置，然后再试。',
        },
        context_overflow: {
          title: '对话内容过长',
          message: '对话长度超出了模型单次请求能处理的上限。',
          fix: '请精简对话内容，或开始新的对话。',
        },
        content_filter: {
          title: '请求被内容策略拦截',
          message: '模型服务根据其内容策略拒绝了这次请求。',
          fix: '请换一种说法，然后再试。',
        },
      },
    },
    watchdog_timeout: {
      title: '模型服务响应超时',
      message: '模型服务未能及时响应。',
      details: {
        connect: { title: '模型服务没有响应', message: '模型服务未能在限定时间内开始回复。' },
        silent_stream: { title: '回复中途停滞', message: '模型服务的回复输出到一半就停了下来。' },
        total: { title: '回复耗时过长', message: '回复用时超出了允许的上限。' },
      },
    },
    user_cancel: {
      title: '你已停止本次运行',
      message: '本次运行已按你的要求停止。',
      details: {
        client_disconnect: {
          title: '页面已关闭，运行随之停止',
          message: '显示本次运行的页面或应用已关闭，运行随之停止。',
        },
      },
      // 停止是用户自己的选择：只说明保留了什么、如何接着做，不当作故障来描述。
      safety: {
        auto_retry: { note: '当时还没有显示或执行任何内容。', action: '需要时可以随时重新开始。' },
        offer_continue: { note: '已显示的内容会保留。', action: '需要时可以从中断处继续。' },
        ask_user_before_retry: {
          note: '某个工具可能已经完成了部分操作。',
          action: '重新开始前，请先确认工具已经做了什么。',
        },
        do_not_retry: { note: '除非你重新开始，否则不会再有后续操作。', action: '准备好后可以随时重新开始。' },
        unknown: { note: '', action: '重新开始前，请先看一下目前的对话内容。' },
      },
    },
    local_lifecycle_close: {
      title: '应用结束了本次运行',
      message: '应用重新加载或关闭，本次运行随之结束。',
      details: {
        instance_reload: { message: '应用重新加载，本次运行随之结束。' },
        instance_dispose: { message: '应用关闭了运行所在的会话，本次运行随之结束。' },
        shutdown: { message: '应用已关闭，本次运行随之结束。' },
      },
      // 这是应用主动结束的，不是"重试也没用"，重新开始即可。
      safety: { do_not_retry: { note: '', action: '请在应用就绪后重新开始。' } },
    },
    request_setup_failure: {
      title: '请求准备失败',
      message: '在向模型服务发送请求之前，准备请求时出了问题。',
    },
    tool_execution_failure: {
      title: '工具执行失败',
      message: '助手调用的工具遇到问题，运行就此结束。',
      details: {
        invalid_arguments: {
          message: '工具收到的输入不符合要求。',
          fix: '请调整请求，让工具拿到有效的输入，然后再试。',
        },
        permission_denied: {
          title: '工具没有执行权限',
          message: '工具没有权限执行所要求的操作。',
          fix: '请检查工具的权限设置，然后再试。',
        },
        environment: {
          message: '工具找不到所需的文件、命令或资源。',
          fix: '请确认工具所需的文件和命令都可用，然后再试。',
        },
        timeout: { title: '工具执行超时', message: '工具没有在限定时间内完成。' },
        provider: { message: '工具所依赖的在线服务没有正常响应。' },
      },
    },
    tool_execution_interrupted: {
      title: '工具执行被中断',
      message: '工具还没执行完就被中止了。',
    },
    process_exit: {
      title: '智能体意外停止',
      message: '智能体进程在运行完成前就退出了。',
      details: {
        exit_nonzero: { message: '智能体进程在运行完成前异常退出。' },
        signal: { message: '智能体进程在运行完成前被系统终止。' },
        stream_error: { message: '运行完成前，与智能体进程的通信就中断了。' },
        fatal_rpc_error: { message: '运行完成前，与智能体进程的通信就中断了。' },
        spawn_failed: {
          title: '智能体无法启动',
          message: '无法启动智能体进程。',
          fix: '请检查智能体的安装和设置，然后再试。',
        },
        cli_not_installed: {
          title: '未安装智能体',
          message: '找不到运行智能体所需的命令行程序。',
          fix: '请先安装智能体的命令行程序，然后再试。',
        },
        empty_output: { message: '智能体进程没有产生任何输出就退出了。' },
      },
    },
    crash_or_restart_incomplete: {
      title: '运行没有正常结束',
      message: '本次运行始终没有结束，可能是应用崩溃或重启了。',
      details: {
        restart_detected: { message: '运行进行期间，应用重启了。' },
      },
    },
    unknown_interruption: {
      title: '运行被中断',
      message: '运行被意外中断，具体原因不明。',
    },
  },
  phases: {
    setup: '这发生在请求发出之前。',
    before_first_provider_progress: '这发生在收到任何回复之前。',
    reasoning_generation: '这发生在模型思考阶段，当时还没有显示任何文字。',
    text_generation: '这发生在部分文字已经显示之后。',
    tool_input_generation: '这发生在模型准备调用工具时。',
    tool_call_materialized: '这发生在工具调用已准备好、但尚未执行时。',
    tool_execution: '这发生在工具执行期间。',
    after_tool_result: '这发生在工具执行完毕之后。',
    finalizing: '这发生在回复即将完成时。',
    unknown: '',
  },
  safeties: {
    auto_retry: {
      note: '当时还没有显示或执行任何内容，可以放心重试。',
      action: '可以直接重试，应用也可能已经在自动重试。',
    },
    offer_continue: { note: '已显示的内容会保留。', action: '可以从中断处继续。' },
    ask_user_before_retry: {
      note: '工具可能已经执行过，重试可能会重复它的操作。',
      action: '重试前，请先确认工具已经做了什么。',
    },
    do_not_retry: {
      note: '按原样重试不会改变结果。',
      action: '请不要按原样重试，先调整请求或设置。',
    },
    unknown: {
      note: '目前无法判断重试是否安全。',
      action: '请先查看已经发生的情况，再决定是否重试。',
    },
  },
  reasons: {
    retry_budget_exhausted: {
      note: '自动重试次数已用完。',
      action: '如果仍需要结果，可以手动重试。',
    },
    unsafe_side_effect_started: {
      note: '会修改内容的工具已经开始执行，重试可能会重复这些修改。',
    },
    side_effect_facts_incomplete: {
      note: '无法确定工具是否已经做出修改，重试可能会重复这些操作。',
    },
  },
  recovery: {
    actions: {
      resume: { note: '将从上次保存的进度继续。', action: '无需操作，正在恢复。' },
      reassign: { note: '任务将从头重新开始。', action: '无需操作，稍后会再次尝试。' },
      fail: { note: '任务的重试次数已用完。', action: '如果仍需要结果，可以重新发起。' },
    },
    reasons: {
      retry_budget_exhausted: { note: '自动重试次数已用完。', action: '如果仍需要结果，可以手动重试。' },
      retry_after_too_long: { note: '模型服务要求等待的时间超过了应用自动重试的上限。', action: '请稍后再试。' },
      side_effects_unconfirmed: {
        note: '由于工具可能已经做出修改，没有自动恢复。',
        action: '请先检查工具做了什么，再决定恢复或重新开始。',
      },
    },
  },
};
