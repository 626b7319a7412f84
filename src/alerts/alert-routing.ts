import { z } from 'zod';
import { readSettingsFile } from '../config/index.ts';
import { ALERT_KINDS, SEVERITIES, type AlertKind, type Severity } from './alert-kind.ts';
import { SINK_NAMES, type SinkName } from './sinks/alert-sink.ts';

/** The rule file cannot be used: the message names the file, the line and the problem. */
export class AlertRulesError extends Error {
  override readonly name = 'AlertRulesError';
  readonly code = 'invalid_alert_rules' as const;
}

const route = z.strictObject({
  /** Kinds this route takes; absent means every kind. */
  kinds: z.array(z.enum(ALERT_KINDS)).min(1).optional(),
  /** Severities this route takes; absent means every severity. */
  severities: z.array(z.enum(SEVERITIES)).min(1).optional(),
  /** Where matching alerts go (the log gets every alert anyway). */
  sinks: z.array(z.enum(SINK_NAMES)).min(1),
});

const ruleFile = z.strictObject({ routes: z.array(route) });

export type AlertRoute = z.infer<typeof route>;

/** Which sinks each alert goes to. The log always gets it. */
export interface AlertRouting {
  /** Where the routes came from: a file path, or `defaults`. */
  readonly source: string;
  readonly routes: readonly AlertRoute[];
}

/** Without a file: `transfer_failed` and every critical alert go to every configured sink. */
export function defaultRouting(configured: readonly SinkName[]): AlertRouting {
  const sinks = configured.filter((sink) => sink !== 'log');
  if (sinks.length === 0) return { source: 'defaults', routes: [] };
  const everywhere = sinks as [SinkName, ...SinkName[]];
  return {
    source: 'defaults',
    routes: [
      { kinds: ['transfer_failed', 'expectation_overdue'], sinks: everywhere },
      { severities: ['critical'], sinks: everywhere },
    ],
  };
}

/** The sinks an alert of this kind and severity goes to, the log first. */
export function sinksFor(
  routing: AlertRouting,
  kind: AlertKind,
  severity: Severity,
  configured: readonly SinkName[],
): SinkName[] {
  const chosen = new Set<SinkName>(['log']);
  for (const r of routing.routes) {
    if (r.kinds && !r.kinds.includes(kind)) continue;
    if (r.severities && !r.severities.includes(severity)) continue;
    for (const sink of r.sinks) if (configured.includes(sink)) chosen.add(sink);
  }
  return [...chosen];
}

const SINK_VARIABLE: Record<SinkName, string> = {
  slack: 'PAYSYNC_ALERT_SLACK_URL',
  email: 'PAYSYNC_ALERT_SMTP_URL',
  webhook: 'PAYSYNC_ALERT_WEBHOOK_URL',
  log: '',
};

/**
 * Reads and validates the rule file (YAML, or JSON which YAML reads too). Throws
 * {@link AlertRulesError} with one line: `<file>, line <n>: <problem>`. A route naming a
 * sink that is not configured is refused too: it would drop alerts silently.
 */
export function loadAlertRouting(file: string, configured: readonly SinkName[]): AlertRouting {
  const read = readSettingsFile(
    'PAYSYNC_ALERTS_FILE',
    file,
    'fix the path or unset PAYSYNC_ALERTS_FILE',
  );
  if ('problem' in read) throw new AlertRulesError(read.problem);
  const { path, value } = read.file;
  const where = read.file.lineOf;
  const result = ruleFile.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new AlertRulesError(
      `PAYSYNC_ALERTS_FILE ${path}, line ${where(issue.path)}: ${field}${issue.message}`,
    );
  }
  result.data.routes.forEach((r, index) => {
    r.sinks.forEach((sink, position) => {
      if (!configured.includes(sink)) {
        throw new AlertRulesError(
          `PAYSYNC_ALERTS_FILE ${path}, line ${where(['routes', index, 'sinks', position])}: routes.${index}.sinks: sink "${sink}" is not configured → set ${SINK_VARIABLE[sink]} or remove it from the route`,
        );
      }
    });
  });
  return { source: path, routes: result.data.routes };
}
