// Online changes keep the symbol version but may move variables: watch TwinCAT's online-change counter.
import type { Session } from './link-session.ts';

export const onlineChangeCounter = 'TwinCAT_SystemInfoVarList._AppInfo.OnlineChangeCnt';

/**
 * Subscribes to the counter when the PLC publishes it (TwinCAT 3 does; older systems and simulators may
 * not) and calls `onChange` whenever it moves. Resolves false when the symbol is absent.
 */
export async function watchOnlineChanges(
  session: Session,
  onChange: (session: Session) => void,
): Promise<boolean> {
  const own = {
    amsNetId: session.client.settings.targetAmsNetId,
    adsPort: session.client.settings.targetAdsPort,
  };
  let symbol;
  try {
    symbol = await session.run('Looking up the online-change counter', (c) =>
      c.getSymbol(onlineChangeCounter, own),
    );
  } catch {
    return false;
  }
  let last: number | undefined;
  await session.run('Watching the online-change counter', (c) =>
    c.subscribeRaw(
      symbol.indexGroup,
      symbol.indexOffset,
      Math.min(symbol.size, 4),
      (data) => {
        if (!session.alive || data.value.length < 4) return;
        const value = data.value.readUInt32LE(0);
        if (last !== undefined && value !== last) onChange(session);
        last = value;
      },
      1000,
      true,
    ),
  );
  return true;
}
