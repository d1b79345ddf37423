// The README tour as a typed client of the generated OpenAPI types (./api.ts, written by openapi-client.test.ts
// next to a copy of this file): list PLCs, read and write a variable, list and acknowledge alarms. It is compiled
// against the document, so an operation or a field the tour relies on that leaves the document fails the build.
import type { operations, paths } from './api.ts';

type Json<Op> = Op extends { responses: { 200: { content: { 'application/json': infer Body } } } }
  ? Body
  : never;
type RequestJson<Op> = Op extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : never;

// The tour's operations by operationId, each tied to the path and method it must stay at.
type ListPlcs = operations['getPlcs'] & paths['/api/plcs']['get'];
type ReadVariable = operations['getPlcVariablesByPath'] & paths['/api/plcs/{plcId}/variables/{path}']['get'];
type WriteVariable = operations['putPlcVariablesByPath'] & paths['/api/plcs/{plcId}/variables/{path}']['put'];
type ListAlarms = operations['getAlarms'] & paths['/api/alarms']['get'];
type AcknowledgeAlarm = operations['postPlcAlarmsAcknowledge'] &
  paths['/api/plcs/{plcId}/alarms/{key}/acknowledge']['post'];

export interface TourClient {
  listPlcs(): Promise<Array<{ plcId: string; isConnected: boolean }>>;
  readVariable(plcId: string, path: string): Promise<{ value: unknown; typeName: string }>;
  writeVariable(plcId: string, path: string, value: unknown): Promise<unknown>;
  listAlarms(): Promise<Array<{ code: string; scope: string; needsAcknowledgement: boolean }>>;
  acknowledgeAlarm(plcId: string, code: string): Promise<boolean>;
}

export function tourClient(base: string, token: string): TourClient {
  const call = async <Body>(method: string, path: string, body?: unknown): Promise<Body> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as Body;
  };
  const at = (plcId: string, rest: string): string => `/api/plcs/${encodeURIComponent(plcId)}${rest}`;
  return {
    async listPlcs() {
      const { data } = await call<Json<ListPlcs>>('GET', '/api/plcs');
      return data.map(({ plcId, isConnected }) => ({ plcId, isConnected }));
    },
    async readVariable(plcId, path) {
      const { data } = await call<Json<ReadVariable>>(
        'GET',
        at(plcId, `/variables/${encodeURIComponent(path)}`),
      );
      return { value: data.value, typeName: data.typeName };
    },
    async writeVariable(plcId, path, value) {
      const body: RequestJson<WriteVariable> = { value };
      const { data } = await call<Json<WriteVariable>>(
        'PUT',
        at(plcId, `/variables/${encodeURIComponent(path)}`),
        body,
      );
      return data.value;
    },
    async listAlarms() {
      const { data } = await call<Json<ListAlarms>>('GET', '/api/alarms');
      return data.items.map((alarm) => ({
        code: alarm.code,
        scope: alarm.scope,
        needsAcknowledgement: alarm['x-ads'].needsAcknowledgement,
      }));
    },
    async acknowledgeAlarm(plcId, code) {
      const { data } = await call<Json<AcknowledgeAlarm>>(
        'POST',
        at(plcId, `/alarms/${encodeURIComponent(code)}/acknowledge`),
      );
      return data.acknowledged;
    },
  };
}
