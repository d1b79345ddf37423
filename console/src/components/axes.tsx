// gvl-hmi/1 axes drawn live: each axis's position between its limits, its target, and whether it is moving.
import { formatValue } from './live-value.tsx';
import { LiveBadge } from './badges.tsx';
import { useLive } from '../live/use-live.ts';

interface HmiAxis {
  sId: string;
  sComponent: string;
  sUnit: string;
  rPosition: number;
  rTargetPos: number;
  rMin: number;
  rMax: number;
  bMoving: boolean;
}

function isAxis(value: unknown): value is HmiAxis {
  return typeof value === 'object' && value !== null && typeof (value as HmiAxis).rPosition === 'number';
}

function AxisBar({ axis }: { axis: HmiAxis }) {
  const span = axis.rMax - axis.rMin || 1;
  const at = (v: number): number => Math.min(100, Math.max(0, ((v - axis.rMin) / span) * 100));
  const unit = axis.sUnit ? ` ${axis.sUnit}` : '';
  return (
    <div class="axis" data-axis={axis.sId}>
      <div class="row">
        <strong>{axis.sId}</strong>
        <span class="muted">{axis.sComponent}</span>
        <span class="mono">
          position <output data-role="position">{formatValue(axis.rPosition)}</output>
          {unit}, target {formatValue(axis.rTargetPos)}
          {unit}
        </span>
        <span class={`badge ${axis.bMoving ? 'ok' : 'muted'}`}>{axis.bMoving ? 'moving' : 'still'}</span>
      </div>
      <svg
        viewBox="0 0 100 10"
        preserveAspectRatio="none"
        role="img"
        aria-label={`${axis.sId}: ${formatValue(axis.rPosition)}${unit} of ${axis.rMin} to ${axis.rMax}${unit}, target ${formatValue(axis.rTargetPos)}${unit}`}
      >
        <rect class="track" x="0" y="2" width="100" height="6" rx="1" />
        <line
          class="target"
          x1={at(axis.rTargetPos)}
          x2={at(axis.rTargetPos)}
          y1="0"
          y2="10"
          vector-effect="non-scaling-stroke"
        />
        <rect
          class={axis.bMoving ? 'pos moving' : 'pos'}
          x={at(axis.rPosition) - 1}
          y="1"
          width="2"
          height="8"
        />
      </svg>
    </div>
  );
}

export function Axes({ plcId, root, count }: { plcId: string; root: string; count: number }) {
  const cell = useLive(plcId, `${root}.aAxes`);
  const value = cell?.sample.value?.value;
  const axes = Array.isArray(value) ? value.filter(isAxis).slice(0, count) : [];
  return (
    <div class="axes">
      <p>
        Axes of <code>{root}</code> <LiveBadge status={cell?.status.value ?? 'connecting'} />
      </p>
      {axes.map((axis) => (
        <AxisBar key={axis.sId} axis={axis} />
      ))}
    </div>
  );
}
