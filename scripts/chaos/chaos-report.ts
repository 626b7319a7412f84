/**
 * The chaos run's verdict as a person reads it: the tables it prints and writes to
 * docs/reliability.md. With one set of books (no tenants file) they are the two tables the run
 * always had; with several tenants, what the one set of processes went through is shown once,
 * and what each tenant's books went through and hold is shown side by side, a column a tenant.
 */

/** What one tenant's books went through and what they hold at the end. */
export interface TenantOutcome {
  readonly name: string;
  readonly environment: 'live' | 'sandbox';
  /** Faults and events aimed at this tenant's simulator, books or relay consumer. */
  readonly injected: Record<string, number>;
  readonly found: Record<string, string | number>;
  /** `paysync audit --truth` of this tenant's books against its own simulator, as printed. */
  readonly audit: string;
}

export interface Outcome {
  readonly config: string;
  /** Whether the processes read a tenants file (even with one tenant). */
  readonly tenantsFile: boolean;
  /** Faults of the whole run: the processes, Redis, PostgreSQL, and rates set on every simulator. */
  readonly injected: Record<string, number>;
  /** Findings about the whole run: faults that did not fire, processes that exited, time. */
  readonly found: Record<string, string | number>;
  readonly tenants: readonly TenantOutcome[];
  readonly clean: boolean;
}

const table = (head: readonly string[], rows: readonly (readonly (string | number)[])[]) => [
  `| ${head.join(' | ')} |`,
  `| --- | ${head
    .slice(1)
    .map(() => '---:')
    .join(' | ')} |`,
  ...rows.map((row) => `| ${row.join(' | ')} |`),
];

/** Rows of one record per tenant, side by side (a row missing for a tenant shows `-`). */
function sideBySide(
  tenants: readonly TenantOutcome[],
  of: (tenant: TenantOutcome) => Record<string, string | number>,
): (string | number)[][] {
  const labels = [...new Set(tenants.flatMap((tenant) => Object.keys(of(tenant))))];
  return labels.map((label) => [label, ...tenants.map((tenant) => of(tenant)[label] ?? '-')]);
}

/** The tables and each audit's last lines, in Markdown. */
export function outcomeTables(outcome: Outcome): string[] {
  const lastLines = (audit: string) => audit.split('\n').slice(-15);
  const [only] = outcome.tenants;
  if (!outcome.tenantsFile && only && outcome.tenants.length === 1) {
    return [
      ...table(['Injected', 'Count'], Object.entries({ ...outcome.injected, ...only.injected })),
      '',
      ...table(['Found', 'Value'], Object.entries({ ...outcome.found, ...only.found })),
      '',
      '```',
      ...lastLines(only.audit),
      '```',
    ];
  }
  const head = outcome.tenants.map((tenant) => `${tenant.name} (${tenant.environment})`);
  return [
    ...table(
      ['Injected into the one set of processes (and every simulator)', 'Count'],
      Object.entries(outcome.injected),
    ),
    '',
    ...table(['Found for the whole run', 'Value'], Object.entries(outcome.found)),
    '',
    ...table(
      ['Each tenant: injected', ...head],
      sideBySide(outcome.tenants, (tenant) => tenant.injected),
    ),
    '',
    ...table(
      ['Each tenant: found in its books', ...head],
      sideBySide(outcome.tenants, (tenant) => tenant.found),
    ),
    ...outcome.tenants.flatMap((tenant) => [
      '',
      `\`paysync audit --truth --tenant ${tenant.name}\` (against its own simulator):`,
      '',
      '```',
      ...lastLines(tenant.audit),
      '```',
    ]),
  ];
}

/** The run's outcome on the console. */
export function printOutcome(outcome: Outcome): void {
  console.log(`injected: ${JSON.stringify(outcome.injected, null, 2)}`);
  console.log(`found: ${JSON.stringify(outcome.found, null, 2)}`);
  for (const tenant of outcome.tenants) {
    const name = outcome.tenantsFile ? ` (tenant ${tenant.name}, ${tenant.environment})` : '';
    console.log(`injected${name}: ${JSON.stringify(tenant.injected, null, 2)}`);
    console.log(`found${name}: ${JSON.stringify(tenant.found, null, 2)}`);
    console.log(tenant.audit.split('\n').slice(-12).join('\n'));
  }
  console.log(outcome.clean ? 'CLEAN' : 'NOT CLEAN');
}
