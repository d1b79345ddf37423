// The MQTT feature: publishes PLC values and alarms to a broker as Sparkplug B or JSON topics. Its public face:
// what the app imports.
export { mqttRoutes } from './routes.ts';
