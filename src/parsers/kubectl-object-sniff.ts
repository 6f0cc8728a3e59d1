// What the sniffer takes for a Kubernetes object (kubectl-object.ts reads it): lines only a Pod's
// status, a pod's spec or an Event prints, and an object's kind, in YAML and in JSON.

/**
 * A JSON line only a pod's status or an event prints, for the sniffer (`kubectl get … -o json`), or
 * the kind of a Pod or Event object: a real pod's `status` starts after its spec, often past the
 * lines the sniffer reads (issue 44), so the object is known by its kind wherever its status sits.
 */
const JSON_MARKERS =
  /^ *"(?:(?:init|ephemeral)?[cC]ontainerStatuses": \[|kind": "(?:Event|EventList|Pod|PodList|Deployment|StatefulSet|DaemonSet|ReplicaSet|Job)",?$|restartCount": \d+,?$|involvedObject": \{|lastState": \{$)/;

/** YAML lines only a Kubernetes Event or a pod's spec prints, and the kind of a Pod or Event (a pod's status lines are kubectl.ts's markers). */
const YAML_MARKERS =
  /^ *(?:- )?(?:involvedObject|regarding):$|^ *(?:- )?kind: (?:Event|Pod)$|^kind: (?:EventList|PodList)$|^ *(?:initContainers|ephemeralContainers):$|^ *(?:- )?(?:terminationMessagePolicy: (?:File|FallbackToLogsOnError)|imagePullPolicy: (?:Always|IfNotPresent|Never)|dnsPolicy: (?:ClusterFirst|ClusterFirstWithHostNet|Default|None))$/;

export function kubeObjectSniffScore(line: string): number {
  return JSON_MARKERS.test(line) || YAML_MARKERS.test(line) ? 2 : 0;
}

/** Whether an assembled JSON document is a Kubernetes object the reader takes. */
export function isKubeObjectJson(text: string): boolean {
  // A container's status cut out of its list names its runtime's container ID.
  return (
    /"kind": ?"(?:Event|EventList|Pod|PodList|Deployment|StatefulSet|DaemonSet|ReplicaSet|Job)"/.test(text) ||
    text.includes('ontainerStatuses"') ||
    /"containerID": ?"[a-z-]+:\/\//.test(text)
  );
}
