import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { Command } from 'commander';
import { CliError } from '../errors.ts';
import { integerOption } from '../input/parse-integer.ts';
import { reasonOf } from '../../error-reason.ts';
import type { DemoSummary } from '../../demo/index.ts';
import { redrawnBlock, say } from '../output.ts';

interface DemoFlags {
  duration?: number;
  port: number;
  db: string;
  interval: number;
}

/** The demo's ops lines: balance drift, open alerts and today's verdict. */
function renderOps(summary: DemoSummary): string {
  const ops = summary.ops;
  if (!ops) return '';
  const drifting = ops.drift.filter((line) => line.drift !== 0);
  const drift =
    ops.drift.length === 0
      ? 'no balance snapshot yet'
      : drifting.length === 0
        ? `none (${ops.drift.map((l) => `${l.accountType} ${l.currency}`).join(', ')} as of ${ops.drift[0]!.asOf})`
        : drifting
            .map((l) => `${l.accountType} ${l.currency} ${l.drift} as of ${l.asOf}`)
            .join('; ');
  return [
    `Balance drift: ${drift}`,
    `Alerts open: ${ops.openAlerts}${ops.openAlerts > 0 ? ' (paysync alerts list)' : ''}`,
    `Today's verdict (${ops.verdict.day}, ${ops.verdict.timeZone}): ${ops.verdict.verdict}`,
  ].join('\n');
}

/** `paysync demo`: simulator + daemon + traffic, with a refreshing summary. */
export function demoCommand(): Command {
  return new Command('demo')
    .description('run the simulator, the daemon and generated traffic together, on this machine')
    .option(
      '--duration <seconds>',
      'stop after this many seconds (default: until Ctrl-C)',
      integerOption('--duration', 1, 7 * 24 * 3600),
    )
    .option(
      '--port <n>',
      'port of the receiver (0 = any free port)',
      integerOption('--port', 0, 65_535),
      0,
    )
    .option(
      '--db <file>',
      'SQLite file for the demo books (replaced at each start)',
      './data/demo.db',
    )
    .option(
      '--interval <seconds>',
      'refresh the summary this often',
      integerOption('--interval', 1, 3600),
      2,
    )
    .addHelpText(
      'after',
      `
Examples:
  $ paysync demo                   until Ctrl-C
  $ paysync demo --duration 60     one minute, then a final summary and what to try next

Starts the payment service simulator in this process, a fresh SQLite ledger (--db, migrated),
the daemon (receiver, workers, scheduler) on a queue prefix of its own, registers the webhook,
and generates payments, transfers (one in five to a sandbox recipient that fails) and refunds,
moving the simulator's clock so they settle in seconds. Every --interval it shows counts by
status, ledger balances per account, open discrepancies, the webhook flow, the latest balance
drift, open alerts and today's verdict. Its scheduler runs in seconds what a deployment runs in
minutes (sweeps every 15 s, balance snapshots every 10 s, the verdict every 15 s), after a first
snapshot that books the simulator's funding as opening balances. Alerts go to the log, and to
Slack when PAYSYNC_ALERT_SLACK_URL is set. It prints the dashboard's URL (the receiver's port) and
an admin token made for the run. Logs go to a file beside --db. Needs only Redis
(PAYSYNC_REDIS_URL, default redis://127.0.0.1:6379): when none answers there but redis-server
is installed, it starts a private one on a free port, with nothing on disk, and stops it on
exit. No credentials: it uses the simulator's. Exit codes: 0 ran and stopped cleanly, 1 Redis
or the database could not be used, 2 bad options.`,
    )
    .action(async (flags: DemoFlags) => {
      const { readEnvironment } = await import('../../config/index.ts');
      const env = readEnvironment();
      const databaseFile = resolve(flags.db);
      const logFile = resolve(dirname(databaseFile), 'demo.log');
      await mkdir(dirname(databaseFile), { recursive: true });
      const { createLogger } = await import('../../logger.ts');
      const { startDemo } = await import('../../demo/index.ts');
      const { renderDemoSummary } = await import('../format/render-demo-summary.ts');
      const logStream = createWriteStream(logFile, { flags: 'a' });
      const logger = createLogger({
        level: env.PAYSYNC_LOG_LEVEL ?? 'info',
        destination: logStream,
        pretty: false,
        base: { role: 'demo' },
      });
      const draw = redrawnBlock();
      say(
        `paysync demo: starting (simulator, ${relative(process.cwd(), databaseFile) || databaseFile}, Redis, daemon); logs in ${relative(process.cwd(), logFile)}`,
      );
      let demo;
      try {
        demo = await startDemo({
          databaseFile,
          ...(env.PAYSYNC_REDIS_URL ? { redisUrl: env.PAYSYNC_REDIS_URL } : {}),
          ...(env.PAYSYNC_ALERT_SLACK_URL ? { alertSlackUrl: env.PAYSYNC_ALERT_SLACK_URL } : {}),
          port: flags.port,
          logger,
          say,
        });
      } catch (error) {
        logStream.end();
        const { ConfigError } = await import('../../config/index.ts');
        if (error instanceof ConfigError) throw error;
        const message = reasonOf(error);
        throw new CliError(`demo: cannot start: ${message}`);
      }
      const running = demo;
      say(
        `paysync demo: dashboard ${running.dashboardUrl} · token ${running.adminToken} (this run only; also the ops API's bearer token; metrics at ${running.dashboardUrl}metrics)`,
      );
      const where = {
        simUrl: running.simUrl,
        webhookUrl: running.webhookUrl,
        databaseUrl: running.databaseUrl,
        queuePrefix: running.queuePrefix,
      };
      const stopReason = await new Promise<string>((resolveStop) => {
        let refreshing = false;
        const refresh = async () => {
          if (refreshing) return;
          refreshing = true;
          try {
            const state = flags.duration
              ? `running for ${flags.duration} s · Ctrl-C stops it`
              : 'Ctrl-C stops it';
            const summary = await running.summary();
            draw(`${renderDemoSummary(summary, { ...where, state })}\n${renderOps(summary)}`);
          } catch (error) {
            logger.warn({ err: error }, 'demo: summary failed');
          } finally {
            refreshing = false;
          }
        };
        const timer = setInterval(() => void refresh(), flags.interval * 1000);
        const done = (reason: string) => {
          clearInterval(timer);
          clearTimeout(deadline);
          process.removeListener('SIGINT', onInt);
          process.removeListener('SIGTERM', onTerm);
          // A second Ctrl-C while stopping means "now".
          process.once('SIGINT', () => process.exit(130));
          resolveStop(reason);
        };
        const onInt = () => done('Ctrl-C');
        const onTerm = () => done('SIGTERM');
        const deadline = flags.duration
          ? setTimeout(() => done(`${flags.duration} s elapsed`), flags.duration * 1000)
          : undefined;
        process.once('SIGINT', onInt);
        process.once('SIGTERM', onTerm);
      });

      say(`\npaysync demo: ${stopReason}; letting the workers finish what arrived…`);
      let summary;
      let failedTransfer;
      try {
        await running.drain(10_000);
        summary = await running.summary();
        failedTransfer = await running.failedTransferId();
      } finally {
        await running.stop();
        await new Promise<void>((done) => logStream.end(done));
      }
      say(renderDemoSummary(summary, { ...where, state: `stopped (${stopReason})` }));
      say(renderOps(summary));
      const dbEnv = `PAYSYNC_DATABASE_URL=${running.databaseUrl}`;
      say(
        `\nTry next: ${dbEnv} npx paysync show ${failedTransfer ?? '<a transfer id>'}${failedTransfer ? '   (a failed transfer, explained)' : ''}\n      or: ${dbEnv} npx paysync list transfers --status failed`,
      );
    });
}
