// Every view of the console, in navigation order.
import { overviewView } from './overview.tsx';
import type { View } from './view.ts';

export const views: readonly View[] = [overviewView];
