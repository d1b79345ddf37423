// Stylesheets are imported for their side effect; esbuild bundles them into the one CSS asset.
declare module '*.css';
