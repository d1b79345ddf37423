// The simulation feature: state, step, run, pause and reset of a scenario. Its public face: what the app and other features import.
export { simulationRoutes } from './routes.ts';
export { command, step, type SimulationCommand } from './service.ts';
