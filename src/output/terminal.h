/* What report, compare and history print for a person at a terminal: their Markdown made
 * plain. A chart's code is no use there, nor are the escapes that keep a name from being
 * read as Markdown; a table reads best with its columns aligned. */
#ifndef LOOPBENCH_TERMINAL_H
#define LOOPBENCH_TERMINAL_H

#include <stddef.h>
#include <stdio.h>

/* md[0..len) (Markdown as loopbench writes it) to out as plain text: each ```mermaid
 * block dropped with the legend lines that follow it to the next blank line (mermaid.h
 * writes them there), a <details> summary kept as a line of its own, heading marks,
 * emphasis marks and backslash escapes removed, and each table's columns padded to
 * their widest cell (right-aligned where the Markdown aligns them right). */
void terminal_from_markdown(const char *md, size_t len, FILE *out);

#endif
