// esbuild bundles the stylesheet imported by main.tsx into app.css.
declare module "*.css";
