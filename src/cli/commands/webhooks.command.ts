import { Command, InvalidArgumentError } from 'commander';
import type { Config } from '../../config/index.ts';
import type { UpstreamClient, Webhook } from '../../upstream/index.ts';
import { CliError } from '../errors.ts';
import { formatTime } from '../format/format-time.ts';
import { renderTable } from '../format/render-table.ts';
import { serviceClientFor } from '../service-client.ts';
import { cliConfig } from '../context.ts';
import { say, printJson } from '../output.ts';

const WEBHOOK_ID = /^wh_[0-9A-Za-z]+$/;

function receiverUrl(value: string): string {
  const text = value.trim();
  if (!/^https?:\/\/\S+$/i.test(text) || !URL.canParse(text)) {
    throw new InvalidArgumentError(
      `--url must be an http:// or https:// URL of this receiver, for example https://paysync.example.com/webhooks`,
    );
  }
  return text;
}

function webhookId(value: string): string {
  if (!WEBHOOK_ID.test(value)) {
    throw new InvalidArgumentError(
      `"${value}" is not a webhook id: they look like wh_ followed by letters and digits (see \`paysync webhooks list\`)`,
    );
  }
  return value;
}

/** Runs one call to the service, turning its failure into a one-line CLI error. */
async function callService<T>(
  invoked: Command,
  what: string,
  call: (client: UpstreamClient) => Promise<T>,
  notFound?: string,
): Promise<T> {
  const config = await cliConfig(invoked);
  const client = await serviceClientFor(config);
  const { UpstreamError } = await import('../../upstream/index.ts');
  try {
    return await call(client);
  } catch (error) {
    if (error instanceof UpstreamError) {
      if (error.code === 'not_found' && notFound) throw new CliError(`${what}: ${notFound}`);
      const where = config.upstreamUrl ?? 'the service';
      if (error.code === 'network' || error.code === 'timeout') {
        throw new CliError(`${what}: cannot reach the service at ${where}: ${error.message}`);
      }
      throw new CliError(`${what}: ${error.message}`);
    }
    throw error;
  }
}

function text(value: unknown): string {
  if (value === undefined || value === null || value === '') return '-';
  if (Array.isArray(value)) return value.join(',');
  return String(value);
}

/** The webhook record without its secret, which must never be printed twice. */
function withoutSecret(hook: Webhook): Omit<Webhook, 'secret'> {
  const { secret: _secret, ...rest } = hook;
  return rest;
}

function secretInstructions(secret: string, config: Config): string[] {
  if (config.webhookSecrets.includes(secret)) {
    return [
      'The service signs its webhooks with a secret PAYSYNC_WEBHOOK_SECRET already holds: the secret needs no change.',
    ];
  }
  const lines = [
    '',
    'The service signs its webhooks to this receiver with a new secret. It is shown only here,',
    'now; paysync never logs it. Put this line in the environment of every process that runs',
    'the receiver (`paysync start` or `paysync serve`), e.g. in .env, then restart them:',
    '',
    `PAYSYNC_WEBHOOK_SECRET=${secret}`,
    '',
  ];
  if (config.webhookSecrets.length > 0) {
    lines.push(
      `PAYSYNC_WEBHOOK_SECRET is already set (${config.webhookSecrets.length} secret${config.webhookSecrets.length === 1 ? '' : 's'}). To rotate without`,
      'rejecting webhooks signed the old way, list both, comma-separated, until the old',
      'registration is deleted:',
      '',
      `PAYSYNC_WEBHOOK_SECRET=${secret},<your current secret>`,
      '',
    );
  } else {
    lines.push(
      'When you rotate later, list both secrets comma-separated (new,old) until the old',
      'registration is deleted; every secret listed is accepted.',
      '',
    );
  }
  if (config.webhook.scheme !== 'standard') {
    lines.push(
      `Note: PAYSYNC_WEBHOOK_SCHEME is ${config.webhook.scheme}; this secret is a Standard Webhooks key (whsec_…), which needs PAYSYNC_WEBHOOK_SCHEME=standard.`,
      '',
    );
  }
  return lines;
}

function registerCommand(): Command {
  return new Command('register')
    .description('register the receiver URL with the service (POST /webhooks)')
    .requiredOption(
      '--url <url>',
      'public http(s) URL of this receiver, ending in its webhook path',
      receiverUrl,
    )
    .option('--events <patterns...>', 'event types to receive: *, transfer.*, or exact types', [
      '*',
    ])
    .option('--description <text>', 'a note to tell registrations apart')
    .option('--json', 'print one JSON document: the registration, its secret, duplicates, warnings')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync webhooks register --url https://paysync.example.com/webhooks
  $ paysync webhooks register --url https://paysync.example.com/webhooks --json | jq -r .secret

--json prints {"webhook": {"id", "url", "events", …}, "secret": <signing secret>|null,
"secretConfigured": <PAYSYNC_WEBHOOK_SECRET holds it>, "duplicates": [older ids with this URL],
"warnings": [text]} on stdout; a failure is still one line on stderr.

If the service hands back a signing secret, the PAYSYNC_WEBHOOK_SECRET=… line to configure is
printed on this terminal only (never logged). Needs PAYSYNC_UPSTREAM_URL, PAYSYNC_API_KEY and
PAYSYNC_MERCHANT_ID. Exit codes: 0 registered, 1 the service refused or is unreachable,
2 bad --url or missing configuration.`,
    )
    .action(
      async (
        flags: { url: string; events: string[]; description?: string; json?: boolean },
        invoked: Command,
      ) => {
        const config = await cliConfig(invoked);
        const existing = await callService(invoked, 'webhooks register', (client) =>
          client.listWebhooks(),
        );
        const created = await callService(invoked, 'webhooks register', (client) =>
          client.createWebhook({
            url: flags.url,
            events: flags.events,
            ...(flags.description ? { description: flags.description } : {}),
          }),
        );
        const path = new URL(flags.url).pathname;
        const pathWarning =
          path === config.webhook.path
            ? undefined
            : `the receiver takes webhooks on ${config.webhook.path} (PAYSYNC_WEBHOOK_PATH), but this URL's path is ${path}.`;
        const sameUrl = existing.filter((hook) => hook.url === flags.url && hook.id !== created.id);
        // With the secret already held there is nothing to wait for: the duplicate goes now.
        const secretHeld = !!created.secret && config.webhookSecrets.includes(created.secret);
        if (flags.json) {
          printJson({
            webhook: withoutSecret(created),
            secret: created.secret ?? null,
            secretConfigured: secretHeld,
            duplicates: sameUrl.map((hook) => hook.id),
            warnings: pathWarning ? [pathWarning] : [],
          });
          return;
        }
        const lines = [
          `Registered webhook ${created.id} → ${text(created.url ?? flags.url)} (events: ${text(created.events ?? flags.events)})`,
        ];
        if (pathWarning) lines.push(`Warning: ${pathWarning}`);
        if (sameUrl.length > 0) {
          const older = sameUrl.map((hook) => hook.id);
          lines.push(
            `Note: ${older.join(', ')} already point${older.length === 1 ? 's' : ''} at this URL, so every event now arrives ${older.length === 1 ? 'twice' : `${older.length + 1} times`}; ${secretHeld ? 'delete the old registration now' : 'delete the old registration once the new secret is in place'}: ${older.map((id) => `paysync webhooks delete ${id}`).join('; ')}`,
          );
        }
        if (created.secret) lines.push(...secretInstructions(created.secret, config));
        else {
          lines.push(
            'The service returned no signing secret: configure the secret it gave you out of band in PAYSYNC_WEBHOOK_SECRET.',
          );
        }
        say(lines.join('\n'));
      },
    );
}

function listCommand(): Command {
  return new Command('list')
    .description('list webhooks registered with the service')
    .option('--json', 'print JSON (an array) instead of a table')
    .addHelpText(
      'after',
      `
Example:
  $ paysync webhooks list
  $ paysync webhooks list --json | jq '.[].url'

Exit codes: 0 listed (also when there are none), 1 the service refused or is unreachable,
2 missing configuration.`,
    )
    .action(async (flags: { json?: boolean }, invoked: Command) => {
      const hooks = await callService(invoked, 'webhooks list', (client) => client.listWebhooks());
      if (flags.json) {
        printJson(hooks.map(withoutSecret));
        return;
      }
      if (hooks.length === 0) {
        say(
          'No webhooks registered. Add one: paysync webhooks register --url <public URL of the receiver>',
        );
        return;
      }
      const rows = hooks as (Webhook & Record<string, unknown>)[];
      say(
        renderTable(
          [
            { header: 'ID', value: (hook) => hook.id },
            { header: 'URL', value: (hook) => text(hook.url) },
            { header: 'EVENTS', value: (hook) => text(hook.events) },
            { header: 'ENABLED', value: (hook) => text(hook.enabled) },
            { header: 'MODE', value: (hook) => text(hook.mode) },
            {
              header: 'CREATED (UTC)',
              value: (hook) => formatTime(hook.createdAt as string | undefined),
            },
          ],
          rows,
        ),
      );
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .description('delete a webhook registration; the service stops sending to it')
    .argument('<id>', 'wh_… (see `paysync webhooks list`)', webhookId)
    .option('--json', 'print one JSON document: {"id", "deleted": true}')
    .addHelpText(
      'after',
      `
Examples:
  $ paysync webhooks delete wh_4Jx9Qm2LrT8vYb3NcK5sWd1F
  $ paysync webhooks delete wh_4Jx9Qm2LrT8vYb3NcK5sWd1F --json | jq .deleted

If its secret is in PAYSYNC_WEBHOOK_SECRET, remove it from the list afterwards.
Exit codes: 0 deleted, 1 no such webhook or the service is unreachable, 2 bad id or
missing configuration.`,
    )
    .action(async (id: string, flags: { json?: boolean }, invoked: Command) => {
      await callService(
        invoked,
        'webhooks delete',
        (client) => client.deleteWebhook(id),
        `the service has no webhook ${id} (404); \`paysync webhooks list\` shows the registered ones`,
      );
      if (flags.json) {
        printJson({ id, deleted: true });
        return;
      }
      say(
        `Deleted webhook ${id}. If its secret is in PAYSYNC_WEBHOOK_SECRET, remove it from the list.`,
      );
    });
}

/** `paysync webhooks register|list|delete`: this receiver's registration with the service. */
export function webhooksCommand(): Command {
  const webhooks = new Command('webhooks')
    .description("manage this receiver's registration with the service")
    .addHelpText(
      'after',
      `
Examples:
  $ paysync webhooks register --url https://paysync.example.com/webhooks
  $ paysync webhooks list
  $ paysync webhooks delete wh_4Jx9Qm2LrT8vYb3NcK5sWd1F`,
    );
  for (const sub of [registerCommand(), listCommand(), deleteCommand()]) webhooks.addCommand(sub);
  return webhooks;
}
