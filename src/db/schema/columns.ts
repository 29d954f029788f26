import { timestamp } from 'drizzle-orm/pg-core';

/** Timestamp columns shared by every table: UTC, with time zone. */
export const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
};
