/** What the tests that publish modules share: names no other test run takes, and object schemas. */

let counter = 0;

/** A module name unique to this process and call (`base-<pid>-<n>`), within the 30-character limit for short bases. */
export const uniqueName = (base: string) => `${base}-${process.pid % 1000}-${++counter}`;

/** A closed object schema; every property required unless `required` says otherwise. */
export const objectSchema = (properties: Record<string, unknown>, required: string[] = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
