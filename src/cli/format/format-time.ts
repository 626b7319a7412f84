/** UTC ISO 8601 with milliseconds; text that is not a time is shown as it is. */
export function formatTime(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '-';
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? value : new Date(parsed).toISOString();
}
