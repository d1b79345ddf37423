// Every view of the console, in navigation order. A new view is one module exporting a View, listed here.
import { adminView } from './admin.tsx';
import { alarmsView } from './alarms.tsx';
import { controlView } from './control.tsx';
import { etherCatView } from './ethercat.tsx';
import { filesView } from './files.tsx';
import { overviewView } from './overview.tsx';
import { plcView } from './plc.tsx';
import type { View } from './view.ts';
import { watchView } from './watch.tsx';

export const views: readonly View[] = [
  overviewView,
  plcView,
  watchView,
  alarmsView,
  controlView,
  etherCatView,
  filesView,
  adminView,
];
