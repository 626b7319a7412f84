import type { OutputConfiguration } from 'commander';
import { terminalText } from './format/terminal-text.ts';

/*
 * The CLI's one way out to the terminal (issue 38.9). Human output carries text the service,
 * the merchant or the database wrote (a description, a reference, an endpoint's answer, an
 * error's reason), so every human line goes through terminalText: no escape sequence nor
 * control character but newline and tab reaches the terminal. `--json` keeps the exact text
 * (JSON escapes control characters), and a document the user asked for (a CSV, a receipt's
 * HTML) keeps its bytes. A lint rule (eslint.config.mjs, `cli-output/one-way-out`) keeps
 * console and process.stdout/stderr.write out of the rest of src/cli.
 */

/** Human output on stdout: a line, or lines joined by newlines. */
export function say(text = ''): void {
  console.log(terminalText(text));
}

/** Human output on stderr: a warning, a failure's reason, a note beside a document on stdout. */
export function sayError(text: string): void {
  console.error(terminalText(text));
}

/** `--json` output: the exact value, two-space indented. */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** A document on stdout byte for byte (a CSV, a receipt's HTML), for a file or a pipe. */
export function printDocument(text: string | Uint8Array): void {
  process.stdout.write(text);
}

/**
 * Commander's own output (help, usage errors, which quote the argument given), stripped like
 * every human line; program.ts gives it to every command.
 */
export const commanderOutput: OutputConfiguration = {
  writeOut: (text) => process.stdout.write(terminalText(text)),
  writeErr: (text) => process.stderr.write(terminalText(text)),
};

/**
 * A progress line on stderr. `inPlace` (a terminal): redraws the current line, ending it when
 * `last`; otherwise one line each.
 */
export function progressLine(text: string, options: { inPlace: boolean; last?: boolean }): void {
  const line = terminalText(text);
  if (options.inPlace) process.stderr.write(`\r${line}${options.last ? '\n' : ''}`);
  else process.stderr.write(`${line}\n`);
}

/**
 * A block of human output on stdout that a terminal redraws in place (the demo's summary);
 * elsewhere (a pipe, a log) each block is printed anew. Only the cursor moves of the redraw
 * itself reach the terminal: the block's text is stripped like every human line.
 */
export function redrawnBlock(): (text: string) => void {
  const stream = process.stdout;
  let previousLines = 0;
  return (text) => {
    const block = terminalText(text);
    if (stream.isTTY) {
      if (previousLines > 0) stream.write(`\x1b[${previousLines}F\x1b[0J`);
      stream.write(`${block}\n`);
      previousLines = block.split('\n').length;
    } else {
      stream.write(`${block}\n\n`);
    }
  };
}
