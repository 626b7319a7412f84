import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.ts';

/** What every ledger function takes first: the database, or the caller's open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;
