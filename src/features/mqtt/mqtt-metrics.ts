// MQTT figures in /metrics: messages and bytes published, changes buffered while the broker is out of reach,
// and changes dropped because the buffer was full.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface MqttFigures {
  messages(): number;
  bytes(): number;
  buffered(): number;
  dropped(): number;
  connected(): boolean;
}

export function registerMqttMetrics(registry: Registry, figures: MqttFigures): void {
  new Counter({
    name: 'mqtt_messages_published_total',
    help: 'MQTT messages handed to the broker connection.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(figures.messages());
    },
  });
  new Counter({
    name: 'mqtt_bytes_published_total',
    help: 'Payload bytes of the MQTT messages handed to the broker connection.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(figures.bytes());
    },
  });
  new Gauge({
    name: 'mqtt_buffered_changes',
    help: 'Changes held while the broker is out of reach (store-and-forward).',
    registers: [registry],
    collect() {
      this.set(figures.buffered());
    },
  });
  new Counter({
    name: 'mqtt_dropped_changes_total',
    help: 'Changes dropped because the MQTT buffer (Mqtt.BufferSize) was full.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(figures.dropped());
    },
  });
  new Gauge({
    name: 'mqtt_connected',
    help: '1 while every MQTT session of the gateway is connected to the broker.',
    registers: [registry],
    collect() {
      this.set(figures.connected() ? 1 : 0);
    },
  });
}
