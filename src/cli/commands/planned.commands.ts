import { Command } from 'commander';
import { CliError, ExitCode } from '../errors.ts';

function notImplementedYet(name: string): () => never {
  return () => {
    throw new CliError(`${name}: not implemented yet`, ExitCode.usage);
  };
}

/**
 * Commands of the design that later issues implement. They are registered now so `--help`
 * shows the whole shape; each moves to a file of its own when it is built.
 */
export function plannedCommands(): Command[] {
  const start = new Command('start')
    .description('run every role (receiver, workers, scheduler) in one process')
    .action(notImplementedYet('start'));
  const serve = new Command('serve')
    .description('run the webhook receiver and ops HTTP API')
    .action(notImplementedYet('serve'));
  const work = new Command('work')
    .description('run the queue workers that fetch and reconcile resources')
    .action(notImplementedYet('work'));
  const schedule = new Command('schedule')
    .description('run the scheduler: sweeps, balance snapshots, exports, inbox recovery')
    .action(notImplementedYet('schedule'));
  const demo = new Command('demo')
    .description('run the simulator, the daemon and generated traffic together, on this machine')
    .option('--duration <seconds>', 'stop after this many seconds (default: until Ctrl-C)')
    .action(notImplementedYet('demo'));
  const sweep = new Command('sweep')
    .description('look for events the service sent but paysync missed, now')
    .action(notImplementedYet('sweep'));
  const backfill = new Command('backfill')
    .description('fetch every payment intent and transfer in a time window into the ledger')
    .requiredOption('--from <time>', 'start, UTC ISO 8601 (inclusive)')
    .requiredOption('--to <time>', 'end, UTC ISO 8601 (inclusive)')
    .action(notImplementedYet('backfill'));
  const exportCommand = new Command('export')
    .description('write the books for a period in an accounting format')
    .requiredOption('--from <time>', 'start, UTC ISO 8601 (inclusive)')
    .requiredOption('--to <time>', 'end, UTC ISO 8601 (inclusive)')
    .option('--format <format>', 'output format', 'csv')
    .action(notImplementedYet('export'));
  const list = new Command('list')
    .description('list mirrored resources: intents, transfers or refunds')
    .argument('<kind>', 'intents | transfers | refunds')
    .option('--status <status>', 'only this status')
    .option('--since <time>', 'only items updated since, UTC ISO 8601')
    .option('--json', 'print JSON instead of a table')
    .action(notImplementedYet('list'));
  const show = new Command('show')
    .description('show one resource: mirror row, status history, journal lines, inbox events')
    .argument('<id>', 'pi_…, tr_…, or a refund id')
    .option('--json', 'print JSON')
    .action(notImplementedYet('show'));
  const webhooks = new Command('webhooks').description(
    "manage this receiver's registration with the service",
  );
  webhooks
    .command('register')
    .description('register the receiver URL with the service')
    .requiredOption('--url <url>', 'public URL of this receiver')
    .action(notImplementedYet('webhooks register'));
  webhooks
    .command('list')
    .description('list webhooks registered with the service')
    .action(notImplementedYet('webhooks list'));
  webhooks
    .command('delete')
    .description('delete a webhook registration')
    .argument('<id>', 'wh_…')
    .action(notImplementedYet('webhooks delete'));
  const replay = new Command('replay')
    .description('re-run received webhook events through the workers')
    .argument('[event-id]', 'inbox id of one event')
    .option('--since <time>', 'every event received since, UTC ISO 8601')
    .action(notImplementedYet('replay'));
  return [
    start,
    serve,
    work,
    schedule,
    demo,
    sweep,
    backfill,
    exportCommand,
    list,
    show,
    webhooks,
    replay,
  ];
}
