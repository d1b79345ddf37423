// The file feature: read, upload and listing of files under a target's file root. Its public face: what the app and other features import.
export { filesRoutes } from './routes.ts';
