export { parseSettings, SettingsError } from "./parse-settings.ts";
export { enumSetting, intSetting, listSetting, SERVICE_ALIASES, SERVICE_NAMES, Settings, type ServiceName } from "./settings.ts";
