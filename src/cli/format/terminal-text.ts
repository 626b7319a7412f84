import { stripVTControlCharacters } from 'node:util';

/**
 * Control characters that survive the escape sequences' removal: C0 but newline and tab, DEL
 * and C1 (U+0080–U+009F; U+009B alone starts a sequence on some terminals).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text from the service, the merchant or the database as a terminal may show it: escape
 * sequences (colours, cursor moves, OSC 8 links, window titles; Node's
 * `stripVTControlCharacters`) and every other control character but newline and tab are
 * removed, so a description cannot clear the screen or disguise a line. The CLI's human output
 * goes through here; `--json` keeps the exact text (JSON escapes it).
 */
export function terminalText(text: string): string {
  return stripVTControlCharacters(text).replace(CONTROL, '');
}
