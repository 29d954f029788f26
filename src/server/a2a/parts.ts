/** The parts and agent messages the A2A agent answers with (./agent.ts, ./workflows.ts). */
import { Role, type Message, type Part } from '@a2a-js/sdk';

export const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  mediaType: 'text/plain',
  filename: '',
  metadata: {},
});

export const dataPart = (value: unknown): Part => ({
  content: { $case: 'data', value },
  mediaType: 'application/json',
  filename: '',
  metadata: {},
});

export function agentMessage(parts: Part[], taskId = '', contextId = ''): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The message's data parts that are JSON objects, in order. */
export function dataObjects(message: Message): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  for (const part of message.parts ?? []) {
    const value: unknown = part.content?.$case === 'data' ? part.content.value : undefined;
    if (isPlainObject(value)) objects.push(value);
  }
  return objects;
}
