<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
    <context>
        <name>AdvancedJobFields</name>
        <message numerus="yes">
            <source>Recompute only the first this many transformer blocks; the others keep their activations. Each kept block makes a step faster and takes more memory: the estimate below shows how much. This model has %n blocks.</source>
            <translation>
                <numerusform>Recompute only the first this many transformer blocks; the others keep their activations. Each kept block makes a step faster and takes more memory: the estimate below shows how much. This model has %n block.</numerusform>
                <numerusform>Recompute only the first this many transformer blocks; the others keep their activations. Each kept block makes a step faster and takes more memory: the estimate below shows how much. This model has %n blocks.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>CommandLine</name>
        <message numerus="yes">
            <source>Only one project folder can be opened at a time; got %n.</source>
            <translation>
                <numerusform>Only one project folder can be opened at a time; got %n.</numerusform>
                <numerusform>Only one project folder can be opened at a time; got %n.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>FactoryCommandImport</name>
        <message numerus="yes">
            <source>--validation_prompt (%n prompt(s)) → validation.prompts</source>
            <translation>
                <numerusform>--validation_prompt (%n prompt) → validation.prompts</numerusform>
                <numerusform>--validation_prompt (%n prompts) → validation.prompts</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>--validation_images (%n image(s)) → validation.images</source>
            <translation>
                <numerusform>--validation_images (%n image) → validation.images</numerusform>
                <numerusform>--validation_images (%n images) → validation.images</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>HubDownloadDialog</name>
        <message numerus="yes">
            <source>Downloading %n file(s)…</source>
            <translation>
                <numerusform>Downloading %n file…</numerusform>
                <numerusform>Downloading %n files…</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message numerus="yes">
            <source>%n of these clips are no longer in the project.</source>
            <translation>
                <numerusform>%n of these clips is no longer in the project.</numerusform>
                <numerusform>%n of these clips are no longer in the project.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ModelFamilyRows</name>
        <message numerus="yes">
            <source> of %n blocks</source>
            <translation>
                <numerusform> of %n block</numerusform>
                <numerusform> of %n blocks</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>SweepComparisonDialog</name>
        <message numerus="yes">
            <source>Sweep “%1”: %n run(s)</source>
            <translation>
                <numerusform>Sweep “%1”: %n run</numerusform>
                <numerusform>Sweep “%1”: %n runs</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>SweepDialog</name>
        <message numerus="yes">
            <source>%n run(s): %1</source>
            <translation>
                <numerusform>%n run: %1</numerusform>
                <numerusform>%n runs: %1</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TrainPage</name>
        <message numerus="yes">
            <source>Sweep “%1”: %n run(s) in the queue.</source>
            <translation>
                <numerusform>Sweep “%1”: %n run in the queue.</numerusform>
                <numerusform>Sweep “%1”: %n runs in the queue.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Its folder goes with its %n checkpoint(s), validation videos and logs: %1 on disk. This cannot be undone. Adapters you exported elsewhere and the project's latent cache stay.</source>
            <translation>
                <numerusform>Its folder goes with its %n checkpoint, validation videos and logs: %1 on disk. This cannot be undone. Adapters you exported elsewhere and the project's latent cache stay.</numerusform>
                <numerusform>Its folder goes with its %n checkpoints, validation videos and logs: %1 on disk. This cannot be undone. Adapters you exported elsewhere and the project's latent cache stay.</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>TrainingClipPlan</name>
        <message numerus="yes">
            <source>%n clip(s) train</source>
            <translation>
                <numerusform>%n clip trains</numerusform>
                <numerusform>%n clips train</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n stretched to a bucket of another shape</source>
            <translation>
                <numerusform>%n stretched to a bucket of another shape</numerusform>
                <numerusform>%n stretched to a bucket of another shape</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n cropped to a bucket of another shape</source>
            <translation>
                <numerusform>%n cropped to a bucket of another shape</numerusform>
                <numerusform>%n cropped to a bucket of another shape</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n left out</source>
            <translation>
                <numerusform>%n left out</numerusform>
                <numerusform>%n left out</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n not reviewed yet</source>
            <translation>
                <numerusform>%n not reviewed yet</numerusform>
                <numerusform>%n not reviewed yet</numerusform>
            </translation>
        </message>
    </context>
</TS>
