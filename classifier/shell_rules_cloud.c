/*
 * shell_rules_cloud.c: cloud, cluster, deploy and database-migration CLIs
 * read by subcommand, as shell_rules_git.c reads git. One row per
 * subcommand: what only reads stays net.fetch (it reaches the network),
 * what changes remote state is cloud.change, what deletes one resource
 * cloud.delete, and what destroys a whole environment or store at once
 * cloud.destroy (db.wipe for a database); docs/classifier.md says why.
 * Rules: a match only ever adds findings to the tool's own (net.fetch, or
 * exec.build for a project's database tool), so a row that matches too
 * much can only over-estimate; a word known only at run time matches any
 * pattern (the strictest reading).
 */
#include <string.h>
#include <strings.h>

#include "classifier/classifier_internal.h"
#include "core/util.h"

enum cloud_kind {
	CK_READ,    /* reads remote state: the tool's own finding alone */
	CK_LOCAL,   /* works on this machine's files or config: the same */
	CK_CHANGE,  /* cloud.change */
	CK_DELETE,  /* cloud.delete */
	CK_DESTROY, /* cloud.destroy */
	CK_WIPE,    /* db.wipe */
	CK_WIPE_NOW, /* db.wipe with no prompt whatever the tool's others do */
	CK_DESTROY_NOW, /* cloud.destroy likewise (gh api -X DELETE repos/o/r) */
	CK_DROP,    /* sql.drop: drops tables or columns the schema no longer has */
	CK_ALTER,   /* sql.alter: applies migrations */
	CK_SECRET,  /* secrets.read: prints a credential */
	CK_FDELETE, /* fs.delete: deletes a project file */
};

/* A tool: what it talks to, the options whose value is the next word
 * (so that value is no subcommand), the options that skip its own
 * confirmation, those that only preview, whether it asks before it
 * destroys (and stops when nothing answers), and whether it is a
 * project's database tool (exec.build) rather than a network client. */
static const struct cloud_tool {
	const char *prog, *what, *valopts, *yes, *dry;
	bool asks, project;
} tools[] = {
#define KUBE_OPTS "-n --namespace --context --cluster --user --kubeconfig -l --selector -f " \
	"--filename -o --output -c --container --field-selector --server -s --token --as " \
	"--as-group --request-timeout --cache-dir --certificate-authority --client-certificate " \
	"--client-key -k --kustomize --grace-period --timeout --type --image --replicas --port " \
	"-p --patch"
#define KUBE_DRY "--dry-run --dry-run=client --dry-run=server"
#define TF_OPTS "-var -var-file -target -state -state-out -backup -lock-timeout " \
	"-parallelism -replace --terragrunt-working-dir --working-dir --terragrunt-config"
#define TF_YES "-auto-approve --auto-approve --terragrunt-non-interactive --non-interactive"
#define FLY_OPTS "-a --app -c --config -r --region -i --image -t --access-token -o --org"
#define DB_TOOL "runs the project's database tool"
	{"kubectl", "talks to a Kubernetes cluster", KUBE_OPTS, "", KUBE_DRY, false, false},
	{"oc", "talks to an OpenShift cluster", KUBE_OPTS, "", KUBE_DRY, false, false},
	{"helm", "talks to a Kubernetes cluster",
	 "-n --namespace --kube-context --kubeconfig -f --values --set --set-string --set-file "
	 "--version --repo -o --output --timeout",
	 "", KUBE_DRY, false, false},
	{"gsutil", "copies cloud storage objects", "-o -h -u", "", "-n", false, false},
	{"rclone", "copies or deletes cloud storage", "--config --include --exclude --filter",
	 "", "--dry-run -n", false, false},
	{"eksctl", "changes EKS clusters",
	 "-n --name -r --region -p --profile -f --config-file -c --cluster", "", "", false, false},
	{"terraform", "plans or changes cloud infrastructure", TF_OPTS, TF_YES, "", true, false},
	{"tofu", "plans or changes cloud infrastructure", TF_OPTS, TF_YES, "", true, false},
	{"terragrunt", "plans or changes cloud infrastructure", TF_OPTS, TF_YES, "", true, false},
	{"pulumi", "plans or changes cloud infrastructure",
	 "-s --stack -C --cwd --config-file -t --target -m --message -p --parallel",
	 "-y --yes", "--preview-only", true, false},
	{"cdk", "deploys AWS CloudFormation stacks",
	 "-a --app -c --context --profile -o --output --role-arn", "-f --force", "", true, false},
	{"aws", "calls cloud APIs over the network",
	 "--profile --region --output --endpoint-url --query --cli-read-timeout "
	 "--cli-connect-timeout --color --ca-bundle",
	 "", "--dryrun --dry-run", false, false},
	/* unattended, gcloud takes each prompt's default, which goes ahead */
	{"gcloud", "calls cloud APIs",
	 "--project --account --configuration --format --filter --region --zone --verbosity "
	 "--impersonate-service-account --billing-project --flags-file --limit --sort-by",
	 "-q --quiet", "", false, false},
	{"az", "calls cloud APIs",
	 "--subscription -g --resource-group -n --name -o --output --query -l --location",
	 "-y --yes", "", true, false},
	{"gh", "calls the GitHub API",
	 "-R --repo -t --title -b --body -B --base -H --head -l --label -a --assignee -m "
	 "--milestone -L --limit -q --jq --template -F --body-file -s --state -X --method -f "
	 "--raw-field --field --header -w --workflow",
	 "-y --yes --confirm", "", true, false},
	{"heroku", "calls the Heroku API", "-a --app -r --remote", "-c --confirm", "", true, false},
	{"flyctl", "calls the Fly.io API", FLY_OPTS, "-y --yes", "", true, false},
	{"fly", "calls the Fly.io API", FLY_OPTS, "-y --yes", "", true, false},
	{"doctl", "calls the DigitalOcean API",
	 "-t --access-token --context -o --output --format -c --config -u --api-url", "-f --force",
	 "", true, false},
	{"vercel", "calls the Vercel API",
	 "-t --token -S --scope --cwd -A --local-config -Q --global-config -e --env -m --meta",
	 "-y --yes", "", true, false},
	{"supabase", "talks to Supabase (its API, or the local stack's containers)",
	 "--workdir --project-ref --db-url -p --password -o --output", "", "--dry-run", false,
	 false},
	{"prisma", DB_TOOL, "--schema --url --name", "-f --force", "", true, true},
	{"drizzle-kit", DB_TOOL, "--config --dialect --schema --out", "", "", false, true},
	{"sequelize", DB_TOOL, "--env --config --url", "", "", false, true},
	{"sequelize-cli", DB_TOOL, "--env --config --url", "", "", false, true},
	{"knex", DB_TOOL, "--knexfile --env --cwd", "", "", false, true},
	{"alembic", DB_TOOL, "-c --config -n --name -x", "", "", false, true},
	{"mix", "runs the project's Mix task", "-e --env", "", "", false, true},
	{"dotnet", "runs Entity Framework's tool (dotnet ef)",
	 "-p --project -s --startup-project -c --context --connection --configuration "
	 "--framework",
	 "-f --force", "", true, true},
	{"flask", "runs the project's Flask command", "-A --app -e --env-file", "", "", false,
	 true},
	{"migrate", DB_TOOL, "-path -source -database -lock-timeout", "-f", "", true, true},
	{"goose", DB_TOOL, "-dir -table -env", "", "", false, true},
	/* as manage.py flush: critical, --noinput or not */
	{"django-admin", DB_TOOL, "--settings --pythonpath --database", "--noinput --no-input", "",
	 false, true},
#undef KUBE_OPTS
#undef KUBE_DRY
#undef TF_OPTS
#undef TF_YES
#undef FLY_OPTS
#undef DB_TOOL
};

/* Subcommands, most severe first within a tool: the first row that
 * matches decides. words: patterns, one per word, matched against
 * consecutive subcommand words anywhere among them (global options and
 * their values skipped); `a|b` alternatives, a trailing `*` a prefix,
 * `*` alone any word. need: options one of which must be given. */
static const struct cloud_verb {
	const char *prog, *words, *need;
	enum cloud_kind kind;
	const char *why;
} verbs[] = {
#define NS "ns|namespace|namespaces|ns/*|namespace/*|namespaces/*|project|projects|project/*"
#define PV "pv|pvc|persistentvolume|persistentvolumes|persistentvolumeclaim|" \
	   "persistentvolumeclaims|pv/*|pvc/*|persistentvolume/*|persistentvolumeclaim/*"
#define KDEL(p) \
	{p, "delete " NS, NULL, CK_DESTROY, "deletes a namespace and everything in it"}, \
	{p, "delete " PV, NULL, CK_DESTROY, "deletes persistent volumes and the data on them"}, \
	{p, "delete crd|crds|customresourcedefinition|customresourcedefinitions|crd/*", NULL, \
	 CK_DESTROY, "deletes a resource type and every object of it"}, \
	{p, "delete", "--all -A --all-namespaces", CK_DESTROY, \
	 "deletes every resource of a kind (--all, --all-namespaces)"}, \
	{p, "config view", "--raw --flatten", CK_SECRET, \
	 "prints the kubeconfig with its client keys and tokens (--raw)"}, \
	{p, "create token", NULL, CK_SECRET, "prints a new service account token"}, \
	{p, "get secret|secrets|secret/*", NULL, CK_SECRET, "prints the cluster's secrets"}, \
	{p, "delete", NULL, CK_DELETE, "deletes resources from the cluster"}, \
	{p, "apply", "--prune", CK_DELETE, \
	 "deletes what the manifests no longer hold (--prune)"}, \
	{p, "config", NULL, CK_LOCAL, "reads or changes the local kubeconfig"}, \
	{p, "exec|attach|debug|cp", NULL, CK_CHANGE, \
	 "runs commands in, or copies files into, a container of the cluster"}, \
	{p, "apply|create|replace|patch|edit|label|annotate|scale|autoscale|set|expose|run|" \
	    "cordon|uncordon|taint|drain", NULL, CK_CHANGE, "changes what runs in the cluster"}, \
	{p, "rollout restart|undo|pause|resume", NULL, CK_CHANGE, "restarts or rolls back workloads"}, \
	{p, "get|describe|logs|top|explain|api-resources|api-versions|cluster-info|diff|events|" \
	    "auth|wait|version|rollout", NULL, CK_READ, "reads the cluster's state"}
	KDEL("kubectl"), KDEL("oc"),
	{"gsutil", "rm", "-r -R -a", CK_DESTROY, "deletes every object under a prefix (-r)"},
	{"gsutil", "rm|rb", NULL, CK_DELETE, "deletes objects or an empty bucket"},
	{"gsutil", "rsync", "-d", CK_DELETE, "deletes remote objects the source lacks (-d)"},
	{"gsutil", "cp|mv|rsync|mb|setmeta|acl|iam|defacl|lifecycle|versioning|web|label|retention",
	 NULL, CK_CHANGE, "writes to cloud storage"},
	{"gsutil", "ls|cat|du|stat|hash|version", NULL, CK_READ, "reads cloud storage"},
	{"rclone", "purge", NULL, CK_DESTROY, "deletes a path and everything under it"},
	{"rclone", "delete|deletefile|rmdir|rmdirs|cleanup|sync|bisync|dedupe", NULL, CK_DELETE,
	 "deletes files on the remote (sync: those the source lacks)"},
	{"rclone", "config|listremotes|version|help|genautocomplete|completion|obscure", NULL,
	 CK_LOCAL, "reads or sets the local configuration"},
	{"rclone", "copy|copyto|move|moveto|mkdir|touch|copyurl|settier|rcat|link|backend", NULL,
	 CK_CHANGE, "writes to remote storage"},
	{"rclone", "ls|lsd|lsl|lsf|lsjson|cat|size|check|about|tree|md5sum|sha1sum|hashsum|ncdu",
	 NULL, CK_READ, "reads remote storage"},
	{"eksctl", "delete cluster|nodegroup|ng", NULL, CK_DESTROY,
	 "deletes an EKS cluster or node group and everything running on it"},
	{"eksctl", "delete", NULL, CK_DELETE, "deletes cluster resources"},
	{"eksctl", "create|upgrade|scale|set|unset|update|drain|enable|disable|register|associate",
	 NULL, CK_CHANGE, "changes EKS clusters"},
	{"eksctl", "get|info|version|completion", NULL, CK_READ, "reads EKS clusters"},
	{"helm", "uninstall|delete|del|un", NULL, CK_DESTROY,
	 "removes a release and every resource it made (the chart's volumes with them)"},
	{"helm", "install|upgrade|rollback|push", NULL, CK_CHANGE, "changes what runs in the cluster"},
	{"helm", "list|ls|status|get|history|show|search|env|version", NULL, CK_READ,
	 "reads releases or charts"},
#define TF(p) \
	{p, "destroy|destroy-all", "-target --target", CK_DELETE, \
	 "destroys the targeted resources and what depends on them (-target)"}, \
	{p, "destroy|destroy-all", NULL, CK_DESTROY, \
	 "destroys every resource the configuration manages"}, \
	{p, "run-all|run", "destroy", CK_DESTROY, "destroys every resource of every module"}, \
	{p, "apply", "-destroy --destroy", CK_DESTROY, \
	 "destroys every resource the configuration manages (apply -destroy)"}, \
	{p, "workspace delete", NULL, CK_DELETE, "deletes a workspace's state"}, \
	{p, "state rm|mv|push|replace-provider", NULL, CK_CHANGE, "rewrites the remote state"}, \
	{p, "apply|import|taint|untaint|refresh|force-unlock|run-all|apply-all", NULL, CK_CHANGE, \
	 "changes cloud infrastructure"}, \
	{p, "plan|show|output|state|providers|graph|version|workspace|init|get", NULL, CK_READ, \
	 "reads the state and the providers"}
	TF("terraform"), TF("tofu"), TF("terragrunt"),
	{"pulumi", "destroy|down|dn", "-t --target", CK_DELETE,
	 "destroys the targeted resources and what depends on them (--target)"},
	{"pulumi", "destroy|down|dn", NULL, CK_DESTROY, "destroys every resource of the stack"},
	{"pulumi", "stack rm", NULL, CK_DELETE, "deletes a stack and its state"},
	{"pulumi", "state delete", NULL, CK_CHANGE, "rewrites the stack's state"},
	{"pulumi", "up|update|refresh|import|cancel", NULL, CK_CHANGE, "changes cloud infrastructure"},
	{"pulumi", "stack init", NULL, CK_CHANGE, "creates a stack"},
	{"pulumi", "preview|pre|stack|whoami|logs|about|config|version", NULL, CK_READ,
	 "reads the stack"},
	{"cdk", "destroy", NULL, CK_DESTROY, "destroys the stacks and every resource in them"},
	{"cdk", "deploy|bootstrap|import|watch|rollback", NULL, CK_CHANGE, "deploys stacks"},
	{"cdk", "synth|synthesize|diff|ls|list|doctor|docs|notices|metadata|acknowledge|context",
	 NULL, CK_READ, "reads the app and the deployed stacks"},
	{"aws", "s3 rb", "--force", CK_DESTROY, "deletes a bucket and every object in it (--force)"},
	{"aws", "s3 rm", "--recursive", CK_DESTROY, "deletes every object under a prefix (--recursive)"},
	{"aws", "cloudformation delete-stack", NULL, CK_DESTROY,
	 "deletes a stack and every resource in it"},
	{"aws", "rds delete-db-instance|delete-db-cluster", "--skip-final-snapshot", CK_DESTROY,
	 "deletes a database with no final snapshot"},
	{"aws", "dynamodb delete-table", NULL, CK_DESTROY, "deletes a table and every item in it"},
	{"aws", "eks delete-cluster", NULL, CK_DESTROY, "deletes a Kubernetes cluster"},
	{"aws", "efs delete-file-system", NULL, CK_DESTROY, "deletes a file system and its files"},
	{"aws", "s3 sync", "--delete", CK_DELETE, "deletes remote objects the source lacks"},
	{"aws", "s3 rm|rb", NULL, CK_DELETE, "deletes an object or an empty bucket"},
	{"aws", "* delete-*|terminate-*|remove-*|deregister-*|purge-*|batch-delete-*|"
	        "schedule-key-deletion|empty-*",
	 NULL, CK_DELETE, "deletes cloud resources"},
	{"aws", "configure|help|history|cli-*", NULL, CK_LOCAL, "reads or sets the local configuration"},
	{"aws", "s3 cp|mv|sync|mb|website", NULL, CK_CHANGE, "writes to cloud storage"},
	{"aws",
	 "* create-*|put-*|update-*|modify-*|run-*|start-*|stop-*|reboot-*|attach-*|detach-*|"
	 "associate-*|disassociate-*|register-*|tag-*|untag-*|set-*|enable-*|disable-*|invoke|"
	 "publish|send-*|import-*|copy-*|restore-*|add-*|authorize-*|revoke-*|reset-*|replace-*|"
	 "execute-*|deploy|apply-*|cancel-*|upload-*|rotate-*|reject-*|accept-*|batch-write-*|"
	 "batch-update-*|batch-put-*|schedule-*|transact-write-*|write-*|migrate-*|promote-*|"
	 "failover-*|switchover-*|increase-*|decrease-*|change-*",
	 NULL, CK_CHANGE, "changes cloud resources"},
	{"aws", "* describe-*|get-*|list-*|ls|head-*|batch-get-*|lookup-*|search-*|scan|query|wait|"
	        "get-caller-identity",
	 NULL, CK_READ, "reads cloud resources"},
	{"gcloud", "projects delete", NULL, CK_DESTROY,
	 "deletes a project and every resource in it (services stop at once)"},
	{"gcloud", "container clusters delete", NULL, CK_DESTROY, "deletes a Kubernetes cluster"},
	{"gcloud", "sql instances|databases delete", NULL, CK_DESTROY,
	 "deletes a database (instance) and its data"},
	{"gcloud", "storage rm", "-r --recursive", CK_DESTROY, "deletes every object under a prefix"},
	{"gcloud", "storage buckets delete", NULL, CK_DESTROY, "deletes a bucket"},
	{"gcloud", "spanner instances delete", NULL, CK_DESTROY, "deletes a database and its data"},
	{"gcloud", "firestore databases delete", NULL, CK_DESTROY, "deletes a database and its data"},
	{"gcloud", "config config-helper", NULL, CK_SECRET, "prints an access token"},
	{"gcloud", "config|help|info|topic|version|components", NULL, CK_LOCAL,
	 "reads or sets the local configuration"},
	{"gcloud", "delete|remove|rm|bulk-delete", NULL, CK_DELETE, "deletes cloud resources"},
	{"gcloud",
	 "create|update|deploy|set|add-iam-policy-binding|remove-iam-policy-binding|"
	 "set-iam-policy|start|stop|reset|resize|patch|import|export|ssh|scp|submit|run|publish|"
	 "enable|disable|apply|upload|cp|mv|rsync|restart|execute|rollback|promote|undelete",
	 NULL, CK_CHANGE, "changes cloud resources"},
	{"gcloud", "list|describe|get-iam-policy|get-value|ls|cat|read|get", NULL, CK_READ,
	 "reads cloud resources"},
	{"az", "group delete", NULL, CK_DESTROY, "deletes a resource group and every resource in it"},
	{"az", "storage account delete", NULL, CK_DESTROY, "deletes a store and its data"},
	{"az", "storage container|share|fs delete", NULL, CK_DESTROY,
	 "deletes a container or share and everything in it"},
	{"az", "delete-batch", NULL, CK_DESTROY, "deletes every blob or file that matches"},
	{"az", "keyvault purge", NULL, CK_DESTROY, "purges a deleted key vault for good"},
	{"az", "aks|cosmosdb delete", NULL, CK_DESTROY, "deletes a cluster or a database and its data"},
	{"az", "sql server|db delete", NULL, CK_DESTROY, "deletes a database and its data"},
	{"az", "postgres|mysql flexible-server|server delete", NULL, CK_DESTROY,
	 "deletes a database server and its data"},
	{"az", "delete|purge|remove", NULL, CK_DELETE, "deletes cloud resources"},
	{"az", "login|logout|config|configure|help|version|extension|upgrade", NULL, CK_LOCAL,
	 "reads or sets the local configuration"},
	{"az", "account set", NULL, CK_LOCAL, "sets the local default subscription"},
	{"az",
	 "create|update|set|deploy|start|stop|restart|add|up|assign|import|upload|apply|invoke|"
	 "scale|swap|run-command|copy|move",
	 NULL, CK_CHANGE, "changes cloud resources"},
	{"az", "list|show|get|query|download", NULL, CK_READ, "reads cloud resources"},
	{"gh", "repo delete", NULL, CK_DESTROY,
	 "deletes a repository with its issues, pull requests and wiki"},
	{"gh", "auth status", "-t --show-token", CK_SECRET, "prints the GitHub token (--show-token)"},
	{"gh", "auth", NULL, CK_LOCAL, "reads or changes the local login"},
	{"gh", "* delete", NULL, CK_DELETE, "deletes it from GitHub"},
	{"gh", "pr create|merge|close|reopen|edit|comment|review|ready|lock|unlock", NULL,
	 CK_CHANGE, "changes pull requests on GitHub"},
	{"gh", "issue create|close|reopen|edit|comment|transfer|lock|unlock|pin|unpin|develop",
	 NULL, CK_CHANGE, "changes issues on GitHub"},
	{"gh", "release create|edit|upload", NULL, CK_CHANGE, "publishes a release on GitHub"},
	{"gh", "repo create|edit|rename|archive|unarchive|fork|sync|deploy-key", NULL, CK_CHANGE,
	 "changes repositories on GitHub"},
	{"gh", "workflow run|enable|disable", NULL, CK_CHANGE, "runs or changes workflows"},
	{"gh", "run rerun|cancel", NULL, CK_CHANGE, "reruns or cancels workflow runs"},
	{"gh", "secret|variable|label|gist|ssh-key|gpg-key|cache|ruleset set|create|edit|add",
	 NULL, CK_CHANGE, "changes settings on GitHub"},
	{"gh", "pr|issue|repo|run|release|workflow|search|browse|status|api|gist|label|cache|"
	       "secret|variable|codespace|project|org",
	 NULL, CK_READ, "reads from GitHub"},
	{"heroku", "apps:destroy|apps:delete|destroy|addons:destroy|addons:remove", NULL, CK_DESTROY,
	 "destroys an app or an add-on and all its data"},
	{"heroku", "pg:reset", NULL, CK_WIPE, "deletes every table of the app's Postgres database"},
	{"heroku", "config|config:get", NULL, CK_SECRET, "prints the app's config vars (its secrets)"},
	{"heroku",
	 "ps:scale|ps:restart|ps:stop|ps:kill|restart|config:set|config:unset|config:add|"
	 "releases:rollback|rollback|apps:create|create|addons:create|addons:add|run|run:detached|"
	 "maintenance:on|maintenance:off|domains:add|domains:remove|container:push|"
	 "container:release|pipelines:promote|pg:killall|pg:promote|features:enable|"
	 "features:disable|scale|apps:rename|git:push",
	 NULL, CK_CHANGE, "changes a Heroku app"},
#define FLY(p) \
	{p, "apps destroy|delete|remove|rm", NULL, CK_DESTROY, \
	 "destroys an app with its machines and volumes"}, \
	{p, "volumes|volume|vol destroy|delete|rm|remove", NULL, CK_DESTROY, \
	 "destroys a volume and the data on it"}, \
	{p, "auth token", NULL, CK_SECRET, "prints the Fly.io access token"}, \
	{p, "tokens create", NULL, CK_SECRET, "prints a new Fly.io token"}, \
	{p, "machine|machines|m destroy|remove|rm|kill", NULL, CK_DELETE, "destroys machines"}, \
	{p, "certs|ips remove|release|delete", NULL, CK_DELETE, "removes a certificate or address"}, \
	{p, "deploy|launch|scale|secrets|machine|machines|m|restart|ips|certs|volumes|volume|vol|" \
	    "apps|postgres|redis|regions|config", \
	 "create|set|unset|import|run|start|stop|restart|update|clone|extend|allocate-v4|" \
	 "allocate-v6|add|count|vm|memory|move|attach|detach|save", \
	 CK_CHANGE, "changes an app on Fly.io"}, \
	{p, "deploy|launch|restart|resume|suspend", NULL, CK_CHANGE, "deploys or changes an app"}, \
	{p, "ssh|console", NULL, CK_CHANGE, "runs commands on an app's machine"}, \
	{p, "status|logs|list|ls|info|releases|version|doctor|dig|ping|show|image|checks", NULL, \
	 CK_READ, "reads from Fly.io"}
	FLY("flyctl"), FLY("fly"),
	{"doctl", "compute droplet|d delete|d|rm", NULL, CK_DESTROY,
	 "deletes a droplet and its disk"},
	{"doctl", "databases|db|database delete|d|rm", NULL, CK_DESTROY,
	 "deletes a database cluster and its data"},
	{"doctl", "kubernetes|k8s|k cluster|clusters|c delete|d|rm", NULL, CK_DESTROY,
	 "deletes a Kubernetes cluster"},
	{"doctl", "compute volume delete|d|rm", NULL, CK_DESTROY, "deletes a volume and its data"},
	{"doctl", "apps delete|d|rm", NULL, CK_DESTROY, "deletes an app"},
	{"doctl", "auth token", NULL, CK_SECRET, "prints the DigitalOcean access token"},
	{"doctl", "auth", NULL, CK_LOCAL, "reads or changes the local login"},
	{"doctl", "delete|d|rm|remove", NULL, CK_DELETE, "deletes cloud resources"},
	{"doctl", "create|c|update|u|droplet-action|volume-action|create-deployment|resize|power-on|"
	          "power-off|reboot|snapshot|add|assign",
	 NULL, CK_CHANGE, "changes cloud resources"},
	{"doctl", "list|ls|get|g|account|version", NULL, CK_READ, "reads cloud resources"},
	{"vercel", "rm|remove", NULL, CK_DESTROY, "removes deployments (a project's every one)"},
	{"vercel", "project|projects rm|remove", NULL, CK_DESTROY,
	 "removes a project with its deployments, domains and settings"},
	{"vercel", "env pull", NULL, CK_SECRET, "writes the project's secrets into a local file"},
	{"vercel", "env|domains|dns|alias|certs|secrets|integration rm|remove", NULL, CK_DELETE,
	 "removes settings from Vercel"},
	{"vercel", "deploy|promote|rollback|redeploy|alias|env|domains|dns|certs|secrets|project|"
	           "projects|git",
	 "set|add|create|connect|disconnect", CK_CHANGE, "changes a Vercel project"},
	{"vercel", "deploy|promote|rollback|redeploy", NULL, CK_CHANGE, "deploys to Vercel"},
	{"vercel", "ls|list|inspect|logs|whoami|env|domains|dns|project|projects|alias|certs|help",
	 NULL, CK_READ, "reads from Vercel"},
	{"supabase", "db reset", NULL, CK_WIPE,
	 "drops and recreates the database (the local stack's, or the linked project's)"},
	{"supabase", "projects delete", NULL, CK_DESTROY, "deletes a project and its database"},
	{"supabase", "db push", NULL, CK_CHANGE, "changes the database's schema"},
	{"supabase", "migration up|repair", NULL, CK_CHANGE, "changes the database's schema"},
	{"supabase", "functions deploy|delete", NULL, CK_CHANGE, "changes a project's functions"},
	{"supabase", "secrets set|unset", NULL, CK_CHANGE, "changes a project's secrets"},
	{"supabase", "projects|branches create|delete", NULL, CK_CHANGE, "changes projects"},
	{"supabase", "db diff|dump|lint", NULL, CK_READ, "reads the database's schema"},
	{"supabase", "status|list|gen|inspect", NULL, CK_READ, "reads from Supabase"},
	{"prisma", "migrate reset", NULL, CK_WIPE, "drops the database and applies every migration"},
	{"prisma", "db push", "--force-reset", CK_WIPE_NOW,
	 "drops the database before it pushes the schema (--force-reset)"},
	{"prisma", "db push", "--accept-data-loss", CK_DROP,
	 "drops the tables and columns the schema no longer has, rows and all"},
	{"prisma", "db push", NULL, CK_ALTER, "applies schema changes to the database"},
	{"prisma", "migrate deploy|dev|resolve", NULL, CK_ALTER,
	 "applies schema changes to the database"},
	{"drizzle-kit", "drop", NULL, CK_FDELETE, "deletes a migration from the migrations folder"},
	{"drizzle-kit", "push", "--force", CK_DROP,
	 "applies the schema, statements that lose data included, without asking (--force)"},
	{"drizzle-kit", "push|migrate|up", NULL, CK_ALTER, "applies schema changes to the database"},
#define SEQ(p) \
	{p, "db:drop", NULL, CK_WIPE, "drops the database"}, \
	{p, "db:migrate:undo:all", NULL, CK_WIPE, "undoes every migration: drops every table they made"}, \
	{p, "db:migrate:undo", NULL, CK_DROP, "undoes the last migration (it may drop tables)"}, \
	{p, "db:migrate|db:create", NULL, CK_ALTER, "applies schema changes to the database"}
	SEQ("sequelize"), SEQ("sequelize-cli"),
	{"knex", "migrate:rollback", "--all", CK_WIPE,
	 "rolls back every migration: drops every table they made (--all)"},
	{"knex", "migrate:rollback|migrate:down", NULL, CK_DROP,
	 "rolls back migrations (they may drop tables)"},
	{"knex", "migrate:latest|migrate:up", NULL, CK_ALTER, "applies schema changes to the database"},
	{"alembic", "downgrade base", NULL, CK_WIPE,
	 "downgrades to base: drops every table the migrations made"},
	{"alembic", "downgrade", NULL, CK_DROP, "downgrades migrations (they may drop tables)"},
	{"alembic", "upgrade", NULL, CK_ALTER, "applies schema changes to the database"},
	{"django-admin", "flush|reset_db", NULL, CK_WIPE, "empties every table of the database"},
	{"dotnet", "ef database drop", NULL, CK_WIPE, "drops the database"},
	{"dotnet", "ef database update", "0", CK_WIPE_NOW,
	 "reverts every migration (update 0): drops every table they made"},
	{"dotnet", "ef database update", NULL, CK_ALTER, "applies schema changes to the database"},
	{"mix", "ecto.drop|ecto.reset", NULL, CK_WIPE, "drops the database"},
	{"mix", "ecto.rollback", "--all", CK_WIPE, "rolls back every migration (--all)"},
	{"mix", "ecto.rollback", NULL, CK_DROP, "rolls back a migration (it may drop tables)"},
	{"mix", "ecto.migrate", NULL, CK_ALTER, "applies schema changes to the database"},
	{"flask", "db downgrade base", NULL, CK_WIPE,
	 "downgrades to base: drops every table the migrations made"},
	{"flask", "db downgrade", NULL, CK_DROP, "downgrades migrations (they may drop tables)"},
	{"flask", "db upgrade", NULL, CK_ALTER, "applies schema changes to the database"},
	{"migrate", "drop", NULL, CK_WIPE, "drops everything in the database"},
	{"migrate", "down", "-all", CK_WIPE_NOW, "applies every down migration (-all)"},
	{"migrate", "down", NULL, CK_DROP, "applies down migrations (they may drop tables)"},
	{"migrate", "up|goto|force", NULL, CK_ALTER, "applies schema changes to the database"},
	{"goose", "reset", NULL, CK_WIPE, "rolls back every migration"},
	{"goose", "down-to", "0", CK_WIPE, "rolls back every migration (down-to 0)"},
	{"goose", "down-to", NULL, CK_DROP, "rolls back migrations (they may drop tables)"},
	{"goose", "down", NULL, CK_DROP, "rolls back a migration (it may drop tables)"},
	{"goose", "up|up-by-one|up-to|redo", NULL, CK_ALTER, "applies schema changes to the database"},
	{"django-admin", "migrate", NULL, CK_ALTER, "applies schema changes to the database"},
#undef NS
#undef PV
#undef KDEL
#undef TF
#undef FLY
#undef SEQ
};

/* Whether a is one of the space-separated options of list, alone or as
 * OPT=VALUE (a VALUE of none, false or 0 turns it off). */
static bool opt_in(const char *list, const char *a)
{
	size_t n = strcspn(a, "=");

	for (const char *p = list; *p; p += strspn(p, " ")) {
		size_t l = strcspn(p, " ");
		if (l == strlen(a) && strncmp(p, a, l) == 0)
			return true;
		if (l == n && a[n] == '=' && strncmp(p, a, l) == 0)
			return strcmp(a + n + 1, "none") != 0 && strcmp(a + n + 1, "false") != 0 &&
			       strcmp(a + n + 1, "0") != 0;
		p += l;
	}
	return false;
}

static bool has_opt(const struct cmdv *c, const char *list)
{
	for (size_t i = 1; list && i < c->n && strcmp(c->w[i].val, "--") != 0; i++)
		if (!(c->w[i].flags & W_DYNAMIC) && opt_in(list, c->w[i].val))
			return true;
	return false;
}

/* Whether word w matches pattern [p, p+n): alternatives by '|', a
 * trailing '*' a prefix, "*" any word; a run-time word matches all. */
static bool pat_match1(const char *v, size_t vn, const char *p, size_t n)
{
	while (n > 0) {
		size_t l = strcspn(p, "|");
		if (l > n)
			l = n;
		if ((l == 1 && p[0] == '*') ||
		    (l > 0 && p[l - 1] == '*' && vn >= l - 1 && strncmp(v, p, l - 1) == 0) ||
		    (vn == l && strncmp(v, p, l) == 0))
			return true;
		p += l + (l < n);
		n -= l + (l < n);
	}
	return false;
}

/* A word that lists kinds (`kubectl delete deploy,ns x`) matches when
 * any of them does. */
static bool pat_match(const struct word *w, const char *p, size_t n)
{
	if (w->flags & (W_DYNAMIC | W_GLOB))
		return true;
	for (const char *v = w->val;; v++) {
		size_t vn = strcspn(v, ",");
		if (pat_match1(v, vn, p, n))
			return true;
		v += vn;
		if (*v == '\0')
			return false;
	}
}

/* The subcommand words of c: not options, nor the value of one of
 * valopts (NULL: of any option), up to a `--` (what follows is a command
 * or arguments). */
static size_t words_of(const struct cmdv *c, const char *valopts, const struct word **out,
                       size_t max)
{
	size_t n = 0;

	for (size_t i = 1; i < c->n && n < max; i++) {
		const char *a = c->w[i].val;
		if (strcmp(a, "--") == 0)
			break;
		if (a[0] == '-' && a[1] && !(c->w[i].flags & W_DYNAMIC)) {
			if (!strchr(a, '=') && (valopts == NULL || opt_in(valopts, a)))
				i++;
			continue;
		}
		out[n++] = &c->w[i];
	}
	return n;
}

/* Whether the patterns of seq match consecutive words of w[0..n), from
 * the first (anchored: the tool's subcommand comes first) or anywhere
 * (gcloud, az, doctl: `gcloud compute instances delete`, a group path of
 * any depth before the verb; goose: a driver and DSN before it). A
 * match starts at the first word or at a literal one, and a run-time
 * word inside it follows a word the pattern names: it stands for any
 * subcommand (`kubectl delete $KIND x` may delete a namespace), but not
 * every run-time operand is one (`aws s3 cp $A $B` is no
 * `cloudformation delete-stack`). */
static bool seq_match(const struct word *const *w, size_t n, const char *seq, bool anchored)
{
	for (size_t s = 0; s < (anchored && n ? 1 : n); s++) {
		const char *q = seq;
		size_t k = s;
		bool named = true; /* the word before was named by the pattern, not `*` */
		if (s > 0 && (w[s]->flags & (W_DYNAMIC | W_GLOB)))
			continue;
		while (*q && k < n) {
			size_t l = strcspn(q, " ");
			if (!pat_match(w[k], q, l) || (k > s && !named && (w[k]->flags & (W_DYNAMIC | W_GLOB))))
				break;
			named = !(l == 1 && q[0] == '*');
			q += l + (q[l] == ' ');
			k++;
		}
		if (*q == '\0')
			return true;
	}
	return false;
}

static const struct cloud_tool *tool_find(const char *prog)
{
	for (size_t i = 0; i < nitems(tools); i++)
		if (strcmp(tools[i].prog, prog) == 0)
			return &tools[i];
	return NULL;
}

/* Variables that skip a tool's confirmation: TF_CLI_ARGS[_CMD] may hold
 * -auto-approve (their value is unread: any counts), as may
 * TERRAGRUNT_NON_INTERACTIVE, PULUMI_SKIP_CONFIRMATIONS; set before the
 * command or earlier in the script (export). */
static const char *const yes_vars[] = {
	"TF_CLI_ARGS", "TF_CLI_ARGS_destroy", "TF_CLI_ARGS_apply", "TERRAGRUNT_NON_INTERACTIVE",
	"TG_NON_INTERACTIVE", "PULUMI_SKIP_CONFIRMATIONS", "CLOUDSDK_CORE_DISABLE_PROMPTS",
};

static bool yes_env(const struct cctx *x, const struct cmdv *c)
{
	for (size_t i = 0; i < nitems(yes_vars); i++) {
		if (rules_env(c, yes_vars[i], NULL) != NULL)
			return true;
		for (size_t k = 0; k < x->nvars; k++)
			if (strcmp(x->vars[k].name, yes_vars[i]) == 0)
				return true;
	}
	return false;
}

/* A destroy goes ahead unasked when the tool has no prompt, the call
 * skips it (-auto-approve, --yes, a variable) or feeds its stdin (`yes
 * |`, a here-string); else the tool stops at its prompt until a person
 * answers. */
static enum tier destroy_tier(const struct cloud_tool *t, const struct cmdv *c, bool yes)
{
	return t->asks && !yes && c->in == IN_NONE ? TIER_HIGH : TIER_CRITICAL;
}

/* Whether an operand of gh api is a repository's own endpoint
 * (repos/OWNER/REPO): DELETE of it is `gh repo delete` without a prompt. */
static bool gh_api_repo(const struct cmdv *c)
{
	size_t idx[8], n = opt_operands(c, 1, "RtbBHlamLqFsXfw", idx, nitems(idx));

	for (size_t i = 0; i < n; i++) {
		const char *p = c->w[idx[i]].val;
		p += *p == '/';
		if (strncmp(p, "repos/", 6) != 0)
			continue;
		p += 6;
		p += strcspn(p, "/");
		if (*p == '/' && p[1] && strcspn(p + 1, "/") == strlen(p + 1) - (p[strlen(p) - 1] == '/'))
			return true;
	}
	return false;
}

/* gh api: a GET unless -X says otherwise or fields are sent (then POST). */
static enum cloud_kind gh_api(const struct cmdv *c)
{
	const char *m = NULL;
	const struct word *w = opt_value(c, 'X', "--method", "RtbBHlamLqFsXfw", &m);
	bool fields = opt_short(c, 'f', "RtbBHlamLqFsXfw") || opt_short(c, 'F', "RtbBHlamLqFsXfw") ||
	              opt_long(c, "--field") || opt_long(c, "--raw-field") || opt_long(c, "--input");

	if (w && (w->flags & W_DYNAMIC))
		return CK_DELETE;
	if (m && strcasecmp(m, "DELETE") == 0)
		return gh_api_repo(c) ? CK_DESTROY_NOW : CK_DELETE;
	if (m ? strcasecmp(m, "GET") != 0 && strcasecmp(m, "HEAD") != 0 : fields)
		return CK_CHANGE;
	return CK_READ;
}

static void cloud_emit(struct cctx *x, const struct cmdv *c, const struct cloud_tool *t,
                       enum cloud_kind k, const char *why)
{
	struct span sp = shell_span_words(x, c->w, c->n);
	bool dry = t->dry[0] && has_opt(c, t->dry), yes = has_opt(c, t->yes) || yes_env(x, c);
	const char *how = yes             ? ", told not to ask"
	                  : c->in != IN_NONE ? ", its prompt answered from stdin"
	                  : !t->asks        ? ", at once: it has no prompt"
	                                    : "";

	if (dry && k >= CK_CHANGE && k <= CK_DESTROY) { /* --dry-run: a read */
		cls_add(x, TIER_HIGH, "net.fetch", sp,
		        "%s only previews what it would change (a dry run), reading remote state",
		        c->prog);
		return;
	}
	if (t->project)
		cls_add(x, TIER_MEDIUM, "exec.build", sp, "%s %s", c->prog, t->what);
	else
		cls_add(x, TIER_HIGH, "net.fetch", sp, "%s %s", c->prog, k == CK_READ ? why : t->what);
	switch (k) {
	case CK_READ:
	case CK_LOCAL:
		break;
	case CK_CHANGE:
		cls_add(x, TIER_HIGH, "cloud.change", sp, "%s %s", c->prog, why);
		break;
	case CK_DELETE:
		cls_add(x, TIER_HIGH, "cloud.delete", sp, "%s %s%s", c->prog, why, yes ? how : "");
		break;
	case CK_WIPE_NOW:
	case CK_DESTROY_NOW:
		cls_add(x, TIER_CRITICAL, k == CK_WIPE_NOW ? "db.wipe" : "cloud.destroy", sp,
		        "%s %s, at once: it has no prompt", c->prog, why);
		break;
	case CK_DESTROY:
	case CK_WIPE:
		cls_add(x, destroy_tier(t, c, yes), k == CK_WIPE ? "db.wipe" : "cloud.destroy", sp,
		        "%s %s%s%s", c->prog, why, how,
		        destroy_tier(t, c, yes) == TIER_HIGH ? " (it asks for confirmation first)" : "");
		break;
	case CK_DROP:
		cls_add(x, TIER_HIGH, "sql.drop", sp, "%s %s", c->prog, why);
		break;
	case CK_ALTER:
		cls_add(x, TIER_MEDIUM, "sql.alter", sp, "%s %s", c->prog, why);
		break;
	case CK_SECRET:
		cls_add(x, TIER_HIGH, "secrets.read", sp, "%s %s", c->prog, why);
		break;
	case CK_FDELETE:
		cls_add(x, TIER_HIGH, "fs.delete", sp, "%s %s", c->prog, why);
		break;
	}
}

/* Commands a tool runs elsewhere (in a container, on a dyno or a VM):
 * judged like a local command, as `ssh HOST CMD` is, since a remote rm
 * -rf / or rails db:drop is no less destructive. where: "--" for the
 * words after a `--`, run as they are (kubectl exec starts no shell); ""
 * for the words after the subcommand's, joined into one command line as
 * heroku run joins them; or an option whose value is the command line. */
static const struct {
	const char *prog, *verb, *where;
} remote_cmds[] = {
	{"kubectl", "exec", "--"}, {"oc", "exec", "--"}, {"oc", "rsh", ""},
	{"heroku", "run", ""}, {"heroku", "run:detached", ""}, {"flyctl", "ssh", "-C"},
	{"fly", "ssh", "-C"}, {"flyctl", "ssh", "--command"}, {"fly", "ssh", "--command"},
	{"gcloud", "ssh", "--command"}, {"az", "run-command", "--scripts"},
	{"gh", "codespace ssh", "--"}, /* review 14: it was net.fetch alone */
};

/* True when words [at, n) of c print the whole environment: env or
 * printenv with nothing to run or name (env's options and NAME=VALUE
 * aside), `export -p`, `declare|typeset -p|-x`, a bare export or set. */
static bool prints_env(const struct cmdv *c, size_t at)
{
	const char *p = at < c->n ? c->w[at].val : "";
	const char *slash = strrchr(p, '/');
	size_t i = at + 1;

	p = slash ? slash + 1 : p;
	if (strcmp(p, "env") == 0 || strcmp(p, "printenv") == 0) {
		while (i < c->n && (c->w[i].val[0] == '-' || strchr(c->w[i].val, '=')))
			i++;
		return i >= c->n;
	}
	if (strcmp(p, "export") == 0 || strcmp(p, "set") == 0)
		return i >= c->n || (strcmp(c->w[i].val, "-p") == 0 && i + 1 >= c->n);
	if (strcmp(p, "declare") == 0 || strcmp(p, "typeset") == 0)
		return i < c->n && (strcmp(c->w[i].val, "-p") == 0 || strcmp(c->w[i].val, "-x") == 0) &&
		       i + 1 >= c->n;
	return false;
}

void rules_remote_env(struct cctx *x, const struct cmdv *c, size_t at, const char *where)
{
	if (prints_env(c, at))
		cls_add(x, TIER_HIGH, "secrets.read", shell_span_words(x, c->w + at, c->n - at),
		        "prints the environment of the %s, where its credentials usually are (not "
		        "the sandbox's scrubbed one)",
		        where);
}

void rules_argv_run(struct cctx *x, const struct cmdv *c, size_t at)
{
	struct cmdv sub = *c;

	rules_remote_env(x, c, at, "container or pod");
	sub.w = c->w + at;
	sub.n = c->n - at;
	sub.prog = NULL;
	sub.in = IN_NONE;
	shell_exec_argv(x, &sub);
}

static void remote_cmd(struct cctx *x, const struct cmdv *c, const struct word *const *w,
                       size_t n)
{
	for (size_t k = 0; k < nitems(remote_cmds); k++) {
		const char *where = remote_cmds[k].where, *v;
		const struct word *cw;
		size_t i = 0;
		if (strcmp(remote_cmds[k].prog, c->prog) != 0 ||
		    !seq_match(w, n, remote_cmds[k].verb, false))
			continue;
		if (where[0] == '-' && where[1] != '-' && where[1] != '\0' &&
		    (cw = opt_value(c, where[1], NULL, where + 1, &v)) != NULL) {
			shell_script_word(x, cw); /* fly ssh console -C 'CMD' */
			continue;
		}
		if (where[0] == '-' && where[1] == '-' && where[2] &&
		    (cw = opt_value(c, 0, where, NULL, &v)) != NULL) {
			shell_script_word(x, cw);
			continue;
		}
		if (where[0] == '-' && where[1] == '-' && where[2] == '\0') {
			while (i < c->n && strcmp(c->w[i].val, "--") != 0)
				i++;
			if (i + 1 < c->n)
				rules_argv_run(x, c, i + 1);
			continue;
		} else if (where[0] == '\0') {
			while (i < c->n && strcmp(c->w[i].val, remote_cmds[k].verb) != 0)
				i++;
			while (i + 1 < c->n && c->w[i + 1].val[0] == '-') /* heroku run -a x CMD */
				i += 1 + (strlen(c->w[i + 1].val) == 2);
		} else
			continue;
		if (i + 1 < c->n) {
			rules_remote_env(x, c, i + 1, "remote machine");
			shell_script_words(x, c, i + 1);
		}
	}
}

/* How much a kind of subcommand can lose: the more severe of two
 * readings wins. */
static int rank(enum cloud_kind k)
{
	switch (k) {
	case CK_READ:
	case CK_LOCAL:
		return 0;
	case CK_ALTER:
		return 1;
	case CK_CHANGE:
		return 2;
	case CK_DELETE:
	case CK_DROP:
	case CK_SECRET:
	case CK_FDELETE:
		return 3;
	case CK_DESTROY:
	case CK_WIPE:
		return 4;
	case CK_WIPE_NOW:
	case CK_DESTROY_NOW:
		return 5;
	}
	return 5; /* fail safe */
}

/* The first row of t's that matches the subcommand words w[0..n). */
static const struct cloud_verb *verb_find(const struct cmdv *c, const struct cloud_tool *t,
                                          const struct word *const *w, size_t n)
{
	static const char *const anywhere[] = {"gcloud", "az", "doctl", "goose"};
	bool anchored = true;

	for (size_t i = 0; i < nitems(anywhere); i++)
		anchored &= strcmp(t->prog, anywhere[i]) != 0;
	for (size_t i = 0; i < nitems(verbs); i++)
		if (strcmp(verbs[i].prog, t->prog) == 0 && seq_match(w, n, verbs[i].words, anchored) &&
		    (verbs[i].need == NULL || has_opt(c, verbs[i].need) ||
		     (verbs[i].need[0] != '-' && seq_match(w, n, verbs[i].need, false))))
			return &verbs[i];
	return NULL;
}

bool rules_cloud(struct cctx *x, const struct cmdv *c)
{
	const struct cloud_tool *t = tool_find(c->prog);
	const struct word *w[32], *wb[32];
	const struct cloud_verb *v, *vb;
	size_t n, nb;

	if (t == NULL)
		return false;
	n = words_of(c, t->valopts, w, nitems(w));
	if (strcmp(t->prog, "gh") == 0 && seq_match(w, n, "api", true)) {
		static const char *const whys[] = {
			[CK_READ] = "reads from the GitHub API",
			[CK_CHANGE] = "changes GitHub through its API",
			[CK_DELETE] = "deletes through the GitHub API",
			[CK_DESTROY_NOW] = "deletes a repository through the GitHub API",
		};
		enum cloud_kind k = gh_api(c);
		cloud_emit(x, c, t, k, whys[k]);
		return true;
	}
	if (strcmp(t->prog, "vercel") == 0 && n == 0) {
		cloud_emit(x, c, t, CK_CHANGE, "deploys the project");
		return true;
	}
	v = verb_find(c, t, w, n);
	/* the other readings: an option the list says takes a value may be a
	 * flag (`kubectl logs -p web`), and one it does not know may take one
	 * (`kubectl delete --cascade orphan ns prod`); the most severe counts */
	for (int r = 0; r < 2; r++) {
		nb = words_of(c, r ? NULL : "", wb, nitems(wb));
		vb = verb_find(c, t, wb, nb);
		if (vb && (v == NULL || rank(vb->kind) > rank(v->kind)))
			v = vb;
	}
	remote_cmd(x, c, w, n);
	if (v) {
		cloud_emit(x, c, t, v->kind, v->why);
		return true;
	}
	cloud_emit(x, c, t, CK_READ, t->what);
	return true;
}

static void rule_cloud(struct cctx *x, struct cmdv *c)
{
	rules_cloud(x, c);
	rules_secret_verb(x, c);
}

#define CLOUD(n) {n, 0, NULL, TIER_LOW, NULL, NULL, rule_cloud}

const struct prog rules_cloud_tab[] = {
	CLOUD("cdk"), CLOUD("flyctl"), CLOUD("fly"), CLOUD("doctl"), CLOUD("vercel"),
	CLOUD("supabase"), CLOUD("prisma"), CLOUD("drizzle-kit"), CLOUD("sequelize"),
	CLOUD("sequelize-cli"), CLOUD("knex"), CLOUD("alembic"), CLOUD("django-admin"),
	CLOUD("aws"), CLOUD("gcloud"), CLOUD("az"), CLOUD("gh"), CLOUD("heroku"), CLOUD("oc"),
	CLOUD("pulumi"), CLOUD("terragrunt"), CLOUD("eksctl"), CLOUD("gsutil"), CLOUD("rclone"),
	CLOUD("mix"), CLOUD("flask"), CLOUD("migrate"), CLOUD("goose"),
};
const size_t rules_cloud_tab_n = nitems(rules_cloud_tab);
