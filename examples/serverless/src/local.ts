// The same app on a plain server, for trying it out before deploying: http://127.0.0.1:8000/docs
import { createApp } from './app.js';

await createApp().run();
