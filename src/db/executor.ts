import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.ts';

/**
 * What every repository takes first: the database, or the caller's open transaction, so the
 * caller decides what commits together.
 */
export type Executor = Kysely<Database> | Transaction<Database>;
