/* The console log, in ModernUO's Serilog format:
 *
 *   [HH:MM:SS LVL] message <s:Source>
 *
 * local time, levels VRB DBG INF WRN ERR FTL, Debug included. stdout is usually a file that a
 * harness tails, so every line is flushed as it is written. */
#ifndef REFSHARD_LOG_H
#define REFSHARD_LOG_H

#include "error.h"

enum log_level {
    LOG_NONE = -1, /* nothing to log */
    LOG_VRB,
    LOG_DBG,
    LOG_INF,
    LOG_WRN,
    LOG_ERR,
    LOG_FTL,
};

/* Sources, as the real server names the classes that log these lines. */
#define LOG_SRC_CORE "Server.Core"
#define LOG_SRC_NET "Server.Network.TcpServer"
#define LOG_SRC_LOOPSTATS "Server.Commands.LoopStats"

void log_line(enum log_level level, const char *source, const char *fmt, ...) RS_PRINTF(3, 4);

#endif
